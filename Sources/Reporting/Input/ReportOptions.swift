import Events
import ExperimentDefinitions
import Foundation

/// How to build a report: the significance level and the moment the data is read "as of".
public struct ReportOptions: Sendable {
    /// 1 − confidence level; 0.05 gives 95% intervals.
    public var alpha: Double
    /// When the report is made (the injected clock); `generated_at` in the JSON.
    public var generatedAt: Date
    /// Only users first exposed at or after this instant (`--since`).
    public var since: Date?
    /// Only users first exposed before this instant (`--until`); also the "as of" time:
    /// anything later is treated as not having happened, and survival is censored here.
    public var until: Date?
    /// The power the "too few users" check asks for.
    public var power: Double
    /// The report currency (products.json's `currency`): every revenue figure is in it.
    public var currency: String
    /// Dimensions to split the comparisons by (`--by`, SPEC §5), in the order asked.
    public var segments: [String]
    /// A segment value with fewer users than this in any arm is pooled into `other` (`--min-segment-users`).
    public var minSegmentUsers: Int
    /// The price table: the forecast matches each payer's first payment to a plan and prices further payments.
    /// Without it no payer is matched to a plan, so the forecast adds no renewals.
    public var products: Products?

    public static let defaultMinSegmentUsers = 100

    /// The experiment's safeguard stops as the store holds them (in force or lifted): the report's
    /// `safeguards` (SPEC §8). `ReportBuilder` reads them from a store that keeps them.
    public var safeguardStops: [SafeguardStop] = []
    /// A bandit's allocation periods as the store recorded them (SPEC §5): the weights in force
    /// per period, for the period-stratified sample ratio check and the report's `allocation`.
    public var allocationPeriods: [AllocationPeriod] = []

    /// `identified` events the store kept as conflicts (SPEC §4: an anonymous id identified as a
    /// second known id, or a known id as another), store-wide; `ReportBuilder` reads them from a
    /// store that keeps people.
    public var identityConflicts = 0
    /// App Store and Google Play payments in the experiment's dates (to the as-of moment), and those
    /// under a store token no exposure named (SPEC §4 `unmatched_store_payments`); `ReportBuilder`
    /// reads them from a store that keeps people.
    public var storePayments = 0
    public var unmatchedStorePayments = 0
    /// The persons of more than one id (SPEC §4 `identity_imbalance`); `ReportBuilder` reads them
    /// from a store that keeps people.
    public var personsOfSeveralIds: Set<UserID> = []

    /// - Parameter currency: defaults to `products`' currency, else USD.
    public init(alpha: Double = 0.05, generatedAt: Date = Date(), since: Date? = nil, until: Date? = nil, power: Double = 0.8,
                currency: String? = nil, segments: [String] = [], minSegmentUsers: Int = ReportOptions.defaultMinSegmentUsers,
                products: Products? = nil) {
        self.products = products
        self.currency = currency ?? products?.currency ?? "USD"
        self.alpha = alpha
        self.generatedAt = generatedAt
        self.since = since
        self.until = until
        self.power = power
        self.segments = segments
        self.minSegmentUsers = minSegmentUsers
    }

    /// The instant the data is read as of: `until` when given, else `generatedAt`.
    public var asOf: Date { until.map { min($0, generatedAt) } ?? generatedAt }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}
