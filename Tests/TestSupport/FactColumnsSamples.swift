import Events
import ExperimentDefinitions
import Foundation

/// Facts rows for tests that write them with a store's facts write and read them back whole.
public enum FactColumnsSamples {
    /// A row giving every column of `FactColumns` a value of its own, no two times alike, so a value
    /// written to another column, or not at all, reads back different. Its texts hold what COPY escapes.
    public static let everyColumnFilled: UserFacts = {
        let at = EventFactory.at
        return UserFacts(
            experiment: "e\tone", userID: "cols\\user\n1", variant: "b", firstExposure: at(1),
            trialStart: at(2), firstPaid: at(3), firstConverted: at(4), firstCancel: at(5), refundedAt: at(6), netRevenue: 12.34,
            revenueEntries: [RevenueEntry(offset: 7_000, amount: 10.8, proceeds: 9.18, proceedsBeforeTax: true, productID: "plus.annual"),
                             RevenueEntry(offset: 8_000, amount: -1.5)],
            crossedOver: true, copySource: .fallback, copyFallbackReason: "time\tout", placement: "onboarding",
            attributes: ExposureAttributes([(key: "country", value: .string("DE")), (key: "new_user", value: .bool(true))]),
            grantedTrialDays: 7, allocationPeriod: at(0), expiredAt: at(9), expiryKind: .involuntary, billingIssueAt: at(10),
            firstUncancel: at(11), strayUncancel: at(12),
            undoneCancels: [EndSpan(at: at(2.5).microseconds, undoneAt: at(2.75).microseconds)],
            laterEnds: [EndSpan(at: at(13).microseconds), EndSpan(at: at(14).microseconds, undoneAt: at(15).microseconds)])
    }()

    /// A row with the same key as `everyColumnFilled` and as few values as a row has: written first,
    /// the filled row's write must replace every one of its columns.
    public static let bare = UserFacts(experiment: everyColumnFilled.experiment, userID: everyColumnFilled.userID,
                                       variant: "a", firstExposure: EventFactory.at(0.5))

    /// The walk of times over `everyColumnFilled`'s experiment in `reader`, asking for "a" and the
    /// row's variant: all it reads, and what it reads with the row's user left out.
    public static func timesRead(_ reader: some FactsReader) throws -> (all: [FactTimes], userLeftOut: [FactTimes]) {
        let filled = everyColumnFilled
        var all: [FactTimes] = [], userLeftOut: [FactTimes] = []
        try reader.forEachFactTimes(experiment: filled.experiment, until: nil, variants: ["a", filled.variant], excluding: []) {
            all.append($0)
        }
        try reader.forEachFactTimes(experiment: filled.experiment, until: nil, variants: ["a", filled.variant],
                                    excluding: [filled.userID]) { userLeftOut.append($0) }
        return (all, userLeftOut)
    }

    /// The comma-separated items in `sql` from just after `opening` to the next `closing` (to the end
    /// when nil): the column list a statement names there.
    public static func list(in sql: String, after opening: String, until closing: String? = ")") -> [String] {
        guard let start = sql.range(of: opening)?.upperBound else { return [] }
        let end = closing.map { sql[start...].range(of: $0)?.lowerBound ?? sql.endIndex } ?? sql.endIndex
        return sql[start..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }
}
