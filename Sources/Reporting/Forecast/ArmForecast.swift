import ExperimentDefinitions
import Foundation

/// One arm's revenue-per-user forecast at the horizon (docs/Forecast.md): the report's `forecast` entry.
public struct ArmForecast: Sendable, Equatable {
    /// One plan period's fitted renewal model.
    public struct PeriodModel: Sendable, Equatable {
        public var alpha: Double
        public var beta: Double
        /// Payers on plans of this period among the arm's mature users.
        public var payers: Int
        /// α + β hit the cap: no heterogeneity seen, a plain geometric model.
        public var capped: Bool
        /// `sbg` (shifted-beta-geometric) or `bdw` (beta-discrete-Weibull, with `c`).
        public var name: String
        public var c: Double?

        public init(alpha: Double, beta: Double, payers: Int, capped: Bool, name: String = "sbg", c: Double? = nil) {
            self.alpha = alpha
            self.beta = beta
            self.payers = payers
            self.capped = capped
            self.name = name
            self.c = c
        }
    }

    public var variant: String
    public var horizonDays: Int
    /// Revenue per mature exposed user by the horizon: revenue to date plus expected further payments.
    public var revenuePerUser: Double?
    /// The 90% bootstrap interval.
    public var ci: Bounds?
    /// The same forecast in proceeds (after the store's cut and tax), and its 90% interval.
    public var proceedsPerUser: Double?
    public var proceedsCI: Bounds?
    /// Mature users the forecast is over.
    public var users: Int
    /// Plan period (P1W, P1M, …) → model; only periods that renew within the horizon.
    public var model: [String: PeriodModel]
    /// Why the figures are null, in words.
    public var nullReason: String?
    /// What the figures leave out, by field, in words (the JSON's `null_reasons`): `unplaced_payers`.
    public var nullReasons: [String: String] = [:]
    /// The point forecast under each model (`sbg`, and `bdw` where it was fitted), whichever was chosen:
    /// what `forecast backtest` compares (not rendered in the report).
    public var modelForecasts: [String: Double] = [:]
    /// The bootstrap draws in draw order (for differences between arms; not rendered), gross and proceeds.
    public var draws: [Double]
    public var proceedsDraws: [Double] = []

    public init(variant: String, horizonDays: Int, revenuePerUser: Double? = nil, ci: Bounds? = nil, users: Int,
                model: [String: PeriodModel] = [:], nullReason: String? = nil, draws: [Double] = []) {
        self.variant = variant
        self.horizonDays = horizonDays
        self.revenuePerUser = revenuePerUser
        self.ci = ci
        self.users = users
        self.model = model
        self.nullReason = nullReason
        self.draws = draws
    }

    /// The metric name that reads this forecast: `revenue_per_user_forecast_d365`.
    public static func metricName(horizonDays: Int) -> String { "revenue_per_user_forecast_d\(horizonDays)" }

    /// The figure, interval and draws a forecast metric reads: gross, or proceeds for `proceeds_per_user_forecast_dN`.
    public func figures(for metric: Metric) -> (value: Double?, ci: Bounds?, draws: [Double]) {
        metric.isProceeds ? (proceedsPerUser, proceedsCI, proceedsDraws) : (revenuePerUser, ci, draws)
    }

    /// A period's name in words for text: P1M → "monthly".
    public static func periodWords(_ period: String) -> String {
        switch period {
        case "P1W": "weekly"
        case "P1M": "monthly"
        case "P3M": "quarterly"
        case "P6M": "six-monthly"
        case "P1Y": "annual"
        default: period
        }
    }
}
