/// One metric, as one entry of `MetricTable`: who it counts, what it counts, and how to read it.
public struct MetricDefinition: Sendable {
    /// Who is in the denominator.
    public enum Unit: Sendable, Equatable {
        case exposedUsers, trialStarters, payers
        /// Users whose first charge came due: payers, and trial starters whose trial has ended.
        case chargeDue

        /// The fact that puts a user in the denominator.
        public var fact: UserOutcome.Fact {
            switch self {
            case .exposedUsers: .exposure
            case .trialStarters: .trialStart
            case .payers: .paid
            case .chargeDue: .chargeDue
            }
        }

        /// The denominator in words ("trial starters").
        public var words: String {
            switch self {
            case .exposedUsers: "users"
            case .trialStarters: "trial starters"
            case .payers: "payers"
            case .chargeDue: "users whose first charge came due"
            }
        }
    }

    /// What the numerator is over the unit.
    public enum Statistic: Sendable, Equatable {
        /// Users in the unit who have `numerator`: a rate with a Wilson interval and a z-test.
        case proportion(numerator: UserOutcome.Fact)
        /// The mean gross revenue per user of the unit (refunds subtracted): a t interval and Welch's test.
        case meanRevenue
        /// The mean proceeds per user (after refunds, the store's cut and tax), tested as revenue is.
        case meanProceeds
        /// Revenue per user forecast at the horizon N of `_dN` (docs/Forecast.md): the renewal model's
        /// forecast with a bootstrap interval; only with a horizon, which must be `forecast.horizon_days`.
        case forecastRevenue
        /// The same forecast in proceeds (after the store's cut and tax), from the same renewal models.
        case forecastProceeds
    }

    /// The name in experiment files and report JSON, e.g. `paid_conversion`.
    public let name: String
    public let unit: Unit
    public let statistic: Statistic
    /// A rise is bad news (cancel and refund rates).
    public let lowerIsBetter: Bool
    /// A short title for tables, e.g. "Paid conversion".
    public let title: String
    /// What a winning variant does, after its name: "turns more users into paying subscribers".
    public let winWords: String

    public init(name: String, unit: Unit, statistic: Statistic, lowerIsBetter: Bool = false, title: String, winWords: String) {
        self.name = name
        self.unit = unit
        self.statistic = statistic
        self.lowerIsBetter = lowerIsBetter
        self.title = title
        self.winWords = winWords
    }

    /// Money per user: revenue and proceeds to date and their forecasts.
    public var isRevenue: Bool { statistic == .meanRevenue || statistic == .meanProceeds || isForecast }
    /// Proceeds rather than gross revenue.
    public var isProceeds: Bool { statistic == .meanProceeds || statistic == .forecastProceeds }
    /// A forecast (gross or proceeds): read from the forecast, never tallied from facts.
    public var isForecast: Bool { statistic == .forecastRevenue || statistic == .forecastProceeds }
}
