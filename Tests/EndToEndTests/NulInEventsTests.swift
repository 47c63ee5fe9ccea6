import Foundation
import Testing
import TestSupport

/// `abctl ingest` refuses a `\u0000` in an event's string per line, naming the field, on every store
/// alike; `/v1/events` is checked in process (ServerTests/InProcess/APIEventRejectionsTests).
@Suite(.timeLimit(.minutes(2))) struct NulInEventsTests {
    enum Store: String, CaseIterable, Sendable { case sqlite, postgres }

    static func database(_ store: Store, folder: TemporaryFolder) async throws -> String {
        switch store {
        case .sqlite: folder.path + "/events.sqlite"
        case .postgres: try await onOwnThread { try PostgresCluster.shared().createDatabase() }
        }
    }

    static let good = #"{"event_id":"g1","type":"trial_started","user_id":"u1","ts":"2026-12-01T10:01:00Z"}"#
    static let nulUser = #"{"event_id":"n1","type":"trial_started","user_id":"u\u0000","ts":"2026-12-01T10:01:00Z"}"#
    static let nulVariant = #"{"event_id":"n2","type":"exposure","user_id":"u2","experiment":"chorus-paywall-copy","variant":"ai\u0000","ts":"2026-12-01T10:00:00Z"}"#
    static let nulProduct = #"{"event_id":"n3","type":"purchased","user_id":"u3","revenue":4.99,"product_id":"\u0000","ts":"2026-12-01T10:00:00Z"}"#

    @Test(arguments: Store.allCases)
    func ingestRejectsTheLineAndStoresTheRest(_ store: Store) async throws {
        let folder = TemporaryFolder()
        _ = folder.write("events.ndjson", [Self.good, Self.nulUser, Self.nulVariant, Self.nulProduct].joined(separator: "\n") + "\n")
        let r = try await Abctl.run(["ingest", folder.path + "/events.ndjson", "--db", try await Self.database(store, folder: folder),
                                   "--experiments", Abctl.packageRoot + "/Experiments"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("stored 1, duplicate 0, rejected 3"), "\(r.stdout)")
        #expect(r.stderr.contains("2: user_id: must not contain the NUL character (\\u0000)"), "\(r.stderr)")
        #expect(r.stderr.contains("3: variant: must not contain the NUL character"), "\(r.stderr)")
        #expect(r.stderr.contains("4: product_id: must not contain the NUL character"), "\(r.stderr)")
    }
}
