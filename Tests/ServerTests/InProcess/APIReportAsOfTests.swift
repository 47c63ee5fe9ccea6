import Events
import ExperimentDefinitions
import Foundation
import Testing

/// `GET /v1/experiments/{id}/report` reads a store as of the moment `abctl report` does (one
/// moment for every figure): without `until` or `ABCTL_NOW`, where the store's data ends when a
/// simulation recorded it; `until` and a fixed clock still name another moment.
@Suite struct APIReportAsOfTests {
    static let experiment = "chorus-trial-length"
    static let end = "2026-11-20T00:00:00Z"

    static func server(clock: Date?) async throws -> InProcessServer {
        let server = try InProcessServer(options: { $0.reportClock = clock })
        let lines = (0..<20).map { i in
            #"{"event_id":"x\#(i)","type":"exposure","user_id":"u\#(i)","experiment":"\#(experiment)","variant":"\#(i % 2 == 0 ? "trial-7d" : "trial-3d")","ts":"2026-11-1\#(i % 8)T10:00:00Z"}"#
        }
        let stored = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: lines.joined(separator: "\n") + "\n")
        #expect(stored.status == 200, "\(stored.text)")
        try server.store.recordObservedUntil(Timestamp(try #require(RFC3339.parse(end))))
        return server
    }

    static func generatedAt(_ server: InProcessServer, _ query: String = "") async throws -> String? {
        let r = await server.request("GET", "/v1/experiments/\(experiment)/report" + query)
        #expect(r.status == 200, "\(r.text.prefix(300))")
        return r.json?["generated_at"] as? String
    }

    @Test func aSimulationsEndIsTheMomentWhenNothingElseNamesOne() async throws {
        let server = try await Self.server(clock: nil)
        #expect(try await Self.generatedAt(server) == Self.end)
        #expect(try await Self.generatedAt(server, "?until=2026-11-15") == "2026-11-15T00:00:00Z")
    }

    @Test func aFixedClockComesBeforeIt() async throws {
        let server = try await Self.server(clock: Date(timeIntervalSince1970: 1_796_860_800))   // 2026-12-10
        #expect(try await Self.generatedAt(server) == "2026-12-10T00:00:00Z")
    }
}
