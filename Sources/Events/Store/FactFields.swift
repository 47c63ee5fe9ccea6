/// The parts of a facts row a reader may leave unread (`FactsReader.forEachFact(…fields:…)`):
/// the variant, the times, the totals and the first exposure's copy and trial are always read.
public struct FactFields: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The first exposure's `placement` and `attributes`: what segments and post-stratification read.
    public static let attributes = FactFields(rawValue: 1 << 0)
    /// The revenue entries (`UserFacts.revenueEntries`; only payers have any): what revenue cut at
    /// a moment, proceeds, revenue by day, horizons, caps and the forecast read.
    public static let revenueEntries = FactFields(rawValue: 1 << 1)

    /// Whole rows.
    public static let all: FactFields = [.attributes, .revenueEntries]
}
