/// A metric as experiment files and reports name it: an entry of `MetricTable`, optionally
/// with a horizon (`paid_conversion_d14`: only users first exposed at least 14 days ago, and
/// only what they did in their first 14 days).
public struct Metric: Hashable, Sendable, CustomStringConvertible {
    /// Horizons are whole days from 1 to this.
    public static let maxHorizonDays = 365

    let tableIndex: Int
    /// N of a `_dN` metric; nil for "every exposed user to date".
    public let horizonDays: Int?

    init(tableIndex: Int, horizonDays: Int?) {
        self.tableIndex = tableIndex
        self.horizonDays = horizonDays
    }

    public var definition: MetricDefinition { MetricTable.all[tableIndex] }

    /// `paid_conversion` or `paid_conversion_d14`.
    public var name: String { horizonDays.map { "\(definition.name)_d\($0)" } ?? definition.name }
    public var description: String { name }

    /// The metric without its horizon.
    public var base: Metric { Metric(tableIndex: tableIndex, horizonDays: nil) }

    /// Can still change after a user's trial ends (so immature until then): conversion, trial-to-paid,
    /// trial cancels, revenue, refunds and billing issues. Trial starts and Day-0 cancels settle within a day.
    public var settlesAfterTrial: Bool {
        ["paid_conversion", "trial_to_paid", "trial_cancel_rate", "revenue_per_user", "proceeds_per_user", "refund_rate",
         "billing_issue_rate"].contains(definition.name)
    }

    /// What the verdict reads: a to-date metric that settles after the trial, in its horizon form
    /// `_dN` with N = `days` (the longest trial + grace); any other metric as it is.
    public func matureForm(days: Int) -> Metric {
        guard horizonDays == nil, settlesAfterTrial, days >= 1 else { return self }
        return Metric(tableIndex: tableIndex, horizonDays: min(days, Self.maxHorizonDays))
    }
    public var lowerIsBetter: Bool { definition.lowerIsBetter }
    public var isRevenue: Bool { definition.isRevenue }
    public var isProceeds: Bool { definition.isProceeds }
    public var unit: MetricDefinition.Unit { definition.unit }

    public var isForecast: Bool { definition.isForecast }

    /// A title for tables: "Paid conversion", "Paid conversion, first 14 days", "Revenue per user forecast, day 365".
    public var title: String {
        guard let n = horizonDays else { return definition.title }
        return isForecast ? "\(definition.title), day \(n)" : "\(definition.title), first \(n) day\(n == 1 ? "" : "s")"
    }

    /// Every metric of the table that is reported without a horizon, in table order (the forecast needs one).
    public static var baseMetrics: [Metric] {
        MetricTable.all.indices.filter { !MetricTable.all[$0].isForecast }.map { Metric(tableIndex: $0, horizonDays: nil) }
    }

    /// `revenue_per_user_forecast_dN`.
    public static func forecast(horizonDays: Int) -> Metric? { Metric(name: "revenue_per_user_forecast_d\(horizonDays)") }

    /// The metric called `name`, or nil (see `parse` for why not).
    public init?(name: String) {
        guard case .success(let m) = Self.parse(name) else { return nil }
        self = m
    }

    /// A metric of the table that code refers to by name; the name must be in the table.
    public static func named(_ name: String) -> Metric {
        guard let m = Metric(name: name) else { preconditionFailure("no metric '\(name)' in MetricTable") }
        return m
    }

    public static let paidConversion = named("paid_conversion")
    public static let day0CancelRate = named("day0_cancel_rate")
    public static let revenuePerUser = named("revenue_per_user")
    public static let proceedsPerUser = named("proceeds_per_user")

    /// Why a name is not a metric, in words for a validation message.
    public enum NameError: Error, Sendable, Equatable {
        /// Neither a table name nor a table name with `_dN`; `suggestion` is the closest known base name.
        case unknown(suggestion: String?)
        /// A table name with a horizon outside 1...365.
        case horizonOutOfRange(base: String, days: String)
    }

    /// Reads `NAME` or `NAME_dN`.
    public static func parse(_ name: String) -> Result<Metric, NameError> {
        if let i = MetricTable.index(of: name) {
            // The forecast is always at a horizon: revenue_per_user_forecast_d365.
            if MetricTable.all[i].isForecast { return .failure(.horizonOutOfRange(base: name, days: "")) }
            return .success(Metric(tableIndex: i, horizonDays: nil))
        }
        if let cut = name.range(of: "_d", options: .backwards) {
            let base = String(name[..<cut.lowerBound]), digits = String(name[cut.upperBound...])
            if let i = MetricTable.index(of: base), !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                guard digits.count <= 3, let n = Int(digits), n >= 1, n <= maxHorizonDays, !(digits.hasPrefix("0")) else {
                    return .failure(.horizonOutOfRange(base: base, days: digits))
                }
                return .success(Metric(tableIndex: i, horizonDays: n))
            }
        }
        var stem = name
        if let cut = name.range(of: "_d", options: .backwards), name[cut.upperBound...].allSatisfy(\.isNumber) { stem = String(name[..<cut.lowerBound]) }
        return .failure(.unknown(suggestion: Spelling.closest(to: stem, in: MetricTable.all.map(\.name))))
    }
}
