import Events
import ExperimentDefinitions
import Foundation

/// `abctl forecast backtest`: each experiment refitted on its data as it stood some days after its
/// start, against what its users went on to earn by the horizon.
public enum ForecastBacktest {
    /// One arm at one cut: the forecast then against the revenue realized since.
    public struct Arm: Sendable, Equatable {
        public var variant: String
        /// Revenue per user forecast at the horizon from the data at the cut; nil with `nullReason`.
        public var forecast: Double?
        public var ci: Bounds?
        /// The users the forecast is over (mature at the cut).
        public var users: Int
        /// Their revenue per user within the horizon, as far as it has happened by now.
        public var realized: Double?
        /// Every one of those users has been followed for the whole horizon.
        public var complete: Bool
        /// The share of those users' horizon still to come (0 when complete).
        public var stillToCome: Double
        /// forecast / realized − 1, once complete.
        public var error: Double?
        /// Each model's forecast (`sbg`, and `bdw` where it was fitted) and its error, whichever was chosen.
        public var models: [String: ModelForecast] = [:]
        public var nullReason: String?
    }

    /// One model's forecast at the cut and its error.
    public struct ModelForecast: Sendable, Equatable {
        public var forecast: Double
        public var error: Double?
    }

    public struct Row: Sendable, Equatable {
        public var experiment: String
        public var atDays: Int
        /// The cut: start + atDays.
        public var at: Date
        public var horizonDays: Int
        public var arms: [Arm]
        /// Why the row has no figures (the cut lies in the future, no start).
        public var nullReason: String?
    }

    /// One pass over the experiment's facts answers every cut. `start` defaults to the experiment's
    /// `start`, else its first exposure.
    public static func run(store: any FactsReader, experiment: Experiment, products: Products, atDays: [Int], now: Date,
                           firstExposure: Date?, draws: Int = ForecastAnalysis.draws) throws -> [Row] {
        let horizon = experiment.forecast.horizonDays
        guard let start = experiment.start ?? firstExposure else {
            return atDays.map { Row(experiment: experiment.id, atDays: $0, at: now, horizonDays: horizon, arms: [], nullReason: "the experiment has no start and no exposures") }
        }
        let cuts = atDays.map { start.addingTimeInterval(Double($0) * 86_400) }
        var accumulators = cuts.map { $0 <= now ? ForecastAccumulator(experiment: experiment, products: products, asOf: $0, realizedAsOf: now) : nil }
        if accumulators.contains(where: { $0 != nil }) {
            try store.forEachFact(experiment: experiment.id) { row in
                for i in accumulators.indices where accumulators[i] != nil { accumulators[i]!.add(row) }
            }
        }
        return try zip(atDays, zip(cuts, accumulators)).map { days, pair in
            let (cut, acc) = pair
            var row = Row(experiment: experiment.id, atDays: days, at: cut, horizonDays: horizon, arms: [])
            guard let acc else {
                row.nullReason = "\(days) days after the start (\(RFC3339.format(cut))) is still to come"
                return row
            }
            let forecasts = try ForecastAnalysis.forecast(acc, draws: draws)
            for (v, variant) in experiment.variants.enumerated() {
                let users = acc.users[v]
                var arm = Arm(variant: variant.key, users: users, complete: false, stillToCome: 0)
                let f = forecasts?[v]
                arm.forecast = f?.revenuePerUser
                arm.ci = f?.ci
                arm.nullReason = f?.nullReason ?? (forecasts == nil ? "no payers among the users mature \(days) days after the start" : nil)
                if users > 0 {
                    arm.realized = acc.realized[v] / Double(users)
                    arm.stillToCome = acc.stillToCome[v] / Double(users)
                    arm.complete = acc.stillToCome[v] == 0
                }
                for (name, value) in f?.modelForecasts ?? [:] {
                    let realized = arm.realized ?? 0
                    arm.models[name] = ModelForecast(forecast: value, error: arm.complete && realized > 0 ? value / realized - 1 : nil)
                }
                if let forecast = arm.forecast, let realized = arm.realized {
                    if !arm.complete {
                        arm.nullReason = arm.nullReason ?? "\(Wording.share(arm.stillToCome, digits: 1)) of these users' first \(horizon) days is still to come"
                    } else if realized > 0 {
                        arm.error = forecast / realized - 1
                    } else {
                        arm.nullReason = "nothing was realized, so a relative error is undefined"
                    }
                }
                row.arms.append(arm)
            }
            return row
        }
    }
}
