import Events
import ExperimentDefinitions
import Foundation

/// How to build a report: what the request asked for (both front doors check it with
/// `ReportParameters.apply`) and the clock it was asked at. What the report reads from a store,
/// the as-of moment among it, is `ReportInputs`.
public struct ReportOptions: Sendable {
    /// 1 − confidence level; 0.05 gives 95% intervals.
    public var alpha: Double
    /// A fixed clock: `ABCTL_NOW`, a test's moment, the end of the demo's story. Nil: the system
    /// clock when the report is read, unless the store recorded where its data ends (the one
    /// as-of moment, applied by `ReportInputs.asOf`).
    public var clock: Date?
    /// Only users first exposed at or after this instant (`--since`).
    public var since: Date?
    /// Only users first exposed before this instant (`--until`); also the "as of" time:
    /// anything later is treated as not having happened, and survival is censored here.
    public var until: Date?
    /// The power the "too few users" check asks for.
    public var power: Double
    /// The report currency (products.json's `currency`): every revenue figure is in it.
    public var currency: String
    /// Dimensions to split the comparisons by (`--by`), in the order asked.
    public var segments: [String]
    /// A segment value with fewer users than this in any arm is pooled into `other` (`--min-segment-users`).
    public var minSegmentUsers: Int
    /// The price table: the forecast matches each payer's first payment to a plan and prices further payments.
    /// Without it no payer is matched to a plan, so the forecast adds no renewals.
    public var products: Products?

    /// Experiment id → the other experiments of its namespace whose ranges do not overlap its own
    /// (`ExperimentCatalog.namespaceNeighbours`): a report counts its people exposed to one of them
    /// too (`namespace_conflicts`), and counts each only in the experiment it saw first.
    public var namespaceNeighbours: [String: [String]] = [:]

    public static let defaultMinSegmentUsers = 100

    /// Reads `namespaceNeighbours` from the folder the reported experiments come from.
    public mutating func readNamespaces(of catalog: ExperimentCatalog) {
        namespaceNeighbours = [:]
        for e in catalog.experiments {
            let neighbours = catalog.namespaceNeighbours(of: e)
            if !neighbours.isEmpty { namespaceNeighbours[e.id] = neighbours }
        }
    }

    /// - Parameter currency: defaults to `products`' currency, else USD.
    public init(alpha: Double = 0.05, clock: Date? = nil, since: Date? = nil, until: Date? = nil, power: Double = 0.8,
                currency: String? = nil, segments: [String] = [], minSegmentUsers: Int = ReportOptions.defaultMinSegmentUsers,
                products: Products? = nil) {
        self.products = products
        self.currency = currency ?? products?.currency ?? "USD"
        self.alpha = alpha
        self.clock = clock
        self.since = since
        self.until = until
        self.power = power
        self.segments = segments
        self.minSegmentUsers = minSegmentUsers
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}
