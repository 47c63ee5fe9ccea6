import Events
import SQLiteStore
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// The oracle data set stored through the real SQLite store (events in shuffled order), read back
/// as facts and reported: every number must match what the Python oracle computed from the events.
@Suite struct StoreOracleTests {
    @Test func reportFromAStoreMatchesTheOracle() throws {
        try withOracleStore { store in
            let experiment = try OracleReportTests.loadExperiment()
            let report = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(alpha: 0.05, clock: OracleReportTests.asOf))
            let json = try #require(JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(report).utf8)) as? [String: Any])
            try OracleCheck.compare(json, try OracleReportTests.expected())
        }
    }

    @Test func storeFactsEqualTheOracleFacts() throws {
        // The same rows whichever way they were derived: a guard that the store adapter maps every column.
        try withOracleStore { store in
            var fromStore: [UserFacts] = []
            try store.forEachFact(experiment: "oracle-report") { fromStore.append($0) }
            // The oracle's facts keep no product ids (only the forecast reads them): compare without them,
            // after checking every payment kept its event's.
            #expect(fromStore.allSatisfy { $0.revenueEntries.allSatisfy { $0.amount < 0 || $0.productID != nil } })
            for i in fromStore.indices { for j in fromStore[i].revenueEntries.indices { fromStore[i].revenueEntries[j].productID = nil } }
            let python = try OracleReportTests.pythonFacts()
            #expect(fromStore.count == python.count)
            #expect(Set(fromStore) == Set(python))
        }
    }

    /// A store in a fresh folder holding every event of the oracle data set (each line must parse).
    private func withOracleStore(_ body: (SQLiteEventStore) throws -> Void) throws {
        let dir = NSTemporaryDirectory() + "abctl-report-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        let text = try String(contentsOfFile: OracleReportTests.folder + "/events.ndjson", encoding: .utf8)
        let parser = EventParser()
        let events = try text.split(separator: "\n").map { line -> Event in
            switch parser.parse(line: String(line)) {
            case .success(let e)?: return e
            case .failure(let r)?: throw StoreTestError("rejected: \(r)")
            case nil: throw StoreTestError("empty line")
            }
        }
        let result = try store.appendAndWait(events)
        #expect(result.stored == events.count)
        try body(store)
    }
}

struct StoreTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
