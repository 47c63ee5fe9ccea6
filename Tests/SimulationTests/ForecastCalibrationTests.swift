import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Statistics
import TestSupport
import Testing
@testable import Simulation

/// The forecast against the truth, in the suite's budget: the small version of tools/forecast_calibration.py
/// (which runs 200 seeds through the built binary; its figures are in docs/Forecast.md).
///
/// Each seed simulates a 3-day and a 7-day arm on monthly plans whose payers churn with a probability per
/// month from Beta(1.5, 6) and Beta(1, 3) (the model's own assumption), users arriving over 60 days; the
/// forecast is made as of day 90 (ForecastAccumulator over each user's facts, as every store computes them)
/// and compared with the true 365-day revenue per user computed from the truth. 16 seeds give 32 intervals:
/// too few to tell 90% from 85% coverage (the script's job), enough to catch a broken forecast.
/// A second scenario makes churn rise with tenure (each payer's churn probability 30% higher each month,
/// a shape the sBG does not have): the intervals should still cover the truth.
/// `ABCTL_CALIBRATION=full` runs 40 seeds of each scenario (the calibration figures in docs/Forecast.md).
/// The checks are one-sided binomial tails at the nominal rates, so they hold as strict at any count.
@Suite(.tags(.calibration)) struct ForecastCalibrationTests {
    static let arms: [(key: String, trialDays: Int, alpha: Double, beta: Double)] = [("trial-3d", 3, 1.5, 6), ("trial-7d", 7, 1, 3)]
    static let holdsSize = CalibrationSize(quick: 16, full: 40)
    static let risingSize = CalibrationSize(quick: 8, full: 40)

    /// Below this, a tail is called a fault: about once in 50 runs of a forecast as good as its nominal rate.
    static let falseAlarm = 0.02

    /// The chance of `covered` or fewer of `total` intervals covering at a true `rate`.
    static func lowerTail(_ covered: Int, of total: Int, rate: Double) throws -> Double {
        covered == total ? 1 : 1 - (try ExactTests.binomialGreater(successes: covered + 1, trials: total, probability: rate))
    }

    static func catalog(in folder: String) throws -> ExperimentCatalog {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        // The shipped plans in one currency: the default population draws GB, DE and FR users, who
        // would pay their storefront's prices, and the truth below is computed at the USD price.
        var products = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: url.path + "/Experiments/products.json"))) as? [String: Any])
        products["storefronts"] = nil
        try JSONSerialization.data(withJSONObject: products).write(to: URL(fileURLWithPath: folder + "/products.json"))
        let variants = arms.map { a in
            #"{ "key": "\#(a.key)", "paywall": { "offering": "chorus_plus", "trial_days": \#(a.trialDays), "discount_framing": "none", "copy": { "strategy": "static", "text": "x" } } }"#
        }.joined(separator: ", ")
        try #"{ "id": "fc", "name": "forecast", "status": "running", "start": "2026-01-01T00:00:00Z", "variants": [\#(variants)] }"#
            .write(toFile: folder + "/fc.json", atomically: true, encoding: .utf8)
        return try ExperimentFiles.load(directory: folder)
    }

    /// P(paid)·(1 − refund)·price·Σ_{j < J} S(j), for trial payers (first payment at the trial's end) and direct buyers.
    static func trueRevenuePerUser(_ rates: Truth.Rates, trialDays: Int, survival: (Int) -> Double, price: Double) -> Double {
        let trialPayers = rates.trialStart * (1 - rates.day0Cancel) * (1 - rates.laterCancel) * rates.convert
        let directPayers = (1 - rates.trialStart) * rates.directPurchase
        func payments(firstDay: Double) -> Double {
            let due = Int(((365 - firstDay) / 30).rounded(.down)) + 1
            return (0..<due).reduce(0) { $0 + survival($1) }
        }
        return (1 - rates.refund) * price * (trialPayers * payments(firstDay: Double(trialDays) + 0.01) + directPayers * payments(firstDay: 0.02))
    }

    /// S(j) = E[Π_{t=1..j} (1 − min(1, θ f^(t−1)))], θ ~ Beta(α, β): Simpson's rule on a fine grid (f = 1 is the sBG's closed form).
    static func survival(alpha: Double, beta: Double, factor f: Double) -> (Int) -> Double {
        if f == 1 { return { ShiftedBetaGeometric(alpha: alpha, beta: beta).survival($0) } }
        let steps = 20_000
        let logNorm = lgamma(alpha + beta) - lgamma(alpha) - lgamma(beta)
        let weights = (0...steps).map { i -> Double in
            let x = Double(i) / Double(steps)
            let density = x <= 0 || x >= 1 ? 0 : exp(logNorm + (alpha - 1) * log(x) + (beta - 1) * log1p(-x))
            return density * (i == 0 || i == steps ? 1 : (i % 2 == 1 ? 4 : 2)) / (3 * Double(steps))
        }
        return { j in
            (0...steps).reduce(0.0) { total, i in
                let theta = Double(i) / Double(steps)
                var p = 1.0
                for t in 0..<j { p *= 1 - min(1, theta * pow(f, Double(t))) }
                return total + weights[i] * p
            }
        }
    }

    /// Runs `seeds` simulations with renewals per `factor`: intervals covering the truth, errors, and how many
    /// seeds chose the bdw for the monthly plan.
    static func calibrate(factor: Double, seeds: ClosedRange<UInt64>) throws -> (covered: Int, errors: [Double], bdw: Int, sbgErrors: [Double]) {
        let folder = NSTemporaryDirectory() + "abctl-fc-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try Self.catalog(in: folder)
        let experiment = try #require(catalog.experiment("fc"))
        var truth = Truth()
        truth.defaultRates.annualShare = 0
        var table: [String: Truth.Rates] = [:]
        for a in Self.arms {
            var r = truth.defaultRates
            r.renewalChurn = .init(alpha: a.alpha, beta: a.beta, tenureFactor: factor)
            table[a.key] = r
        }
        truth.variants["fc"] = table
        let price = try #require(catalog.products.offerings["chorus_plus"]?["monthly"]?.price)
        let trueValue = Self.arms.map { a in
            Self.trueRevenuePerUser(truth.defaultRates, trialDays: a.trialDays, survival: survival(alpha: a.alpha, beta: a.beta, factor: factor), price: price)
        }
        var covered = 0, errors: [Double] = [], bdw = 0, sbgErrors: [Double] = []
        for seed in seeds {
            let simulator = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth,
                                      options: .init(users: 6000, seed: seed, days: 60, tailDays: 40))
            var byUser: [UserID: [Event]] = [:]
            _ = try simulator.run { batch in
                for e in batch { byUser[e.userID, default: []].append(e) }
                return AppendResult(stored: batch.count)
            }
            var acc = ForecastAccumulator(experiment: experiment, products: catalog.products, asOf: simulator.start.addingTimeInterval(90 * 86_400))
            for user in byUser.keys.sorted() {
                for f in FactsBuilder.facts(userID: user, events: byUser[user]!) { acc.add(f) }
            }
            let forecasts = try #require(try ForecastAnalysis.forecast(acc))
            if forecasts[0].model["P1M"]?.name == "bdw" { bdw += 1 }
            for (i, f) in forecasts.enumerated() {
                let value = try #require(f.revenuePerUser, "seed \(seed) \(f.variant): \(f.nullReason ?? "")")
                let ci = try #require(f.ci)
                if ci.contains(trueValue[i]) { covered += 1 }
                errors.append(value / trueValue[i] - 1)
                if let sbg = f.modelForecasts["sbg"] { sbgErrors.append(sbg / trueValue[i] - 1) }
            }
        }
        return (covered, errors, bdw, sbgErrors)
    }

    static func describe(_ name: String, _ r: (covered: Int, errors: [Double], bdw: Int, sbgErrors: [Double]), seeds: Int) -> String {
        let medianError = r.errors.map(abs).sorted()[r.errors.count / 2]
        let bias = r.errors.reduce(0, +) / Double(r.errors.count)
        let sbgMedian = r.sbgErrors.map(abs).sorted()[r.sbgErrors.count / 2], sbgBias = r.sbgErrors.reduce(0, +) / Double(r.sbgErrors.count)
        return "forecast calibration (\(name)): 90% intervals covered the truth in \(r.covered) of \(r.errors.count) (\(String(format: "%.3f", Double(r.covered) / Double(r.errors.count)))); "
            + "median |error| \(String(format: "%.3f", medianError)), mean error \(String(format: "%+.3f", bias)); bdw chosen in \(r.bdw) of \(seeds) seeds; "
            + "the sBG alone: median |error| \(String(format: "%.3f", sbgMedian)), mean error \(String(format: "%+.3f", sbgBias))"
    }

    @Test func intervalsCoverTheTruthAndErrorsAreSmall() throws {
        let seeds = Self.holdsSize.count
        let r = try Self.calibrate(factor: 1, seeds: 1...UInt64(seeds))
        print(Self.describe("the sBG holds", r, seeds: seeds))
        let medianError = r.errors.map(abs).sorted()[r.errors.count / 2]
        let sbgMedian = r.sbgErrors.map(abs).sorted()[r.sbgErrors.count / 2]
        // At a true 90%, so few covering is rarer than the false alarm (with 32 intervals: 24 or fewer).
        let coverTail = try Self.lowerTail(r.covered, of: r.errors.count, rate: 0.90)
        #expect(coverTail >= Self.falseAlarm, "\(r.covered) of \(r.errors.count) intervals covered the truth (P = \(coverTail) at 90%)")
        // The 16 seeds' median error; over more seeds the sBG alone is nearer 12% (docs/Forecast.md), so
        // there the choice must only not be worse than it.
        if seeds == Self.holdsSize.quick { #expect(medianError < 0.1, "median |error| \(medianError)") }
        #expect(medianError <= sbgMedian + 0.01, "median |error| \(medianError), the sBG alone \(sbgMedian)")
        // Where the sBG holds the test prefers the bdw about 5% of the time (of 16 seeds: 4 or more is the fault).
        let bdwTail = r.bdw == 0 ? 1 : try ExactTests.binomialGreater(successes: r.bdw, trials: seeds, probability: 0.05)
        #expect(bdwTail >= Self.falseAlarm, "bdw chosen in \(r.bdw) of \(seeds) (P = \(bdwTail) at 5%)")
    }

    @Test func whenChurnRisesWithTenureTheIntervalsCover() throws {
        let seeds = Self.risingSize.count
        let r = try Self.calibrate(factor: 1.3, seeds: 101...UInt64(100 + seeds))
        print(Self.describe("churn rising 30% a month", r, seeds: seeds))
        // At a true 85%, so few covering is rarer than the false alarm (with 16 intervals: 9 or fewer).
        // How often the bdw is chosen is printed, not asserted: as of day 90 payers show two renewals at most,
        // too little for the test to tell a rising churn from noise most of the time (docs/Forecast.md).
        let coverTail = try Self.lowerTail(r.covered, of: r.errors.count, rate: 0.85)
        #expect(coverTail >= Self.falseAlarm, "\(r.covered) of \(r.errors.count) intervals covered the truth (P = \(coverTail) at 85%)")
    }
}
