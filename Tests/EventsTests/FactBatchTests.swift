import Events
import ExperimentDefinitions
import Testing
import TestSupport

/// A batch gives back the rows put in it, column by column, across rows with and without lists.
@Suite struct FactBatchTests {
    static let filled = FactColumnsSamples.everyColumnFilled

    /// Rows that tell the per-row ends of the flat lists apart: spans and entries after rows with none,
    /// a repeated variant, product id and fallback reason, an empty fallback reason.
    static func rows() -> [UserFacts] {
        var second = filled
        second.userID = "u2"
        second.variant = "a"
        second.revenueEntries = [RevenueEntry(offset: 1, amount: 4.99, productID: "plus.annual")]
        second.undoneCancels = []
        second.laterEnds = [EndSpan(at: 99)]
        var third = FactColumnsSamples.bare
        third.userID = "u3"
        third.copyFallbackReason = ""
        return [FactColumnsSamples.bare, filled, second, third, filled]
    }

    @Test func rowsReadBackAsPutIn() {
        var batch = FactBatch()
        for row in Self.rows() { batch.append(row) }
        #expect(batch.count == 5)
        #expect(batch.facts(experiment: Self.filled.experiment) == Self.rows().map(\.withoutBatchlessParts))
        // Each variant and fallback reason kept once.
        #expect(batch.variants == ["a", "b"])
        #expect(batch.fallbackReasons == ["time\tout"])
    }

    @Test func emptiedBatchTakesNewRows() {
        var batch = FactBatch()
        for row in Self.rows() { batch.append(row) }
        batch.removeAll()
        #expect(batch.count == 0 && batch.variants.isEmpty)
        batch.append(Self.rows()[2])
        #expect(batch.facts(experiment: Self.filled.experiment) == [Self.rows()[2].withoutBatchlessParts])
    }

    /// A store that reads rows gives them in full batches of `FactBatch.capacity`, then the rest, in order.
    @Test func aWalkOfRowsFillsBatchesInOrder() throws {
        let rows = (0..<(FactBatch.capacity + 5)).map { i in
            var f = i.isMultiple(of: 3) ? Self.filled : FactColumnsSamples.bare
            f.userID = UserID("user\(i)")
            f.firstExposure = Timestamp(microseconds: Int64(i))
            return f
        }
        let reader = RowsReader(rows: rows)
        var sizes: [Int] = [], read: [UserFacts] = []
        try reader.forEachFactBatch(experiment: Self.filled.experiment, since: nil, until: nil, fields: .revenueEntries) { batch in
            sizes.append(batch.count)
            read += batch.facts(experiment: Self.filled.experiment)
        }
        #expect(sizes == [FactBatch.capacity, 5])
        #expect(read == rows.map(\.withoutBatchlessParts))
    }
}

/// Facts rows in memory, read one by one.
private struct RowsReader: FactsReader {
    let rows: [UserFacts]
    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws {
        for row in rows { try body(row) }
    }
    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] { [:] }
    func experiments() throws -> [ExperimentSummary] { [] }
}
