import Foundation
import TestSupport
import Testing

/// A store written by `abctl simulate` is read as of where the story ends, by the CLI and the API
/// alike, until real events arrive: then reports read as of now again (one as-of moment).
@Suite struct SimulationEndTests {
    static let experiment = "chorus-trial-length"
    static let end = "2026-11-20T00:00:00Z"

    static func generatedAt(_ json: String) -> String? {
        guard let range = json.range(of: #""generated_at":""#) else { return nil }
        return String(json[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func reportsReadAsOfTheStorysEndUntilRealEventsArrive() async throws {
        let folder = TemporaryFolder()
        let db = folder.path + "/sim.sqlite"
        let simulated = try await Abctl.run(["simulate", "--users", "1500", "--db", db, "--until", Self.end])
        #expect(simulated.status == 0, "\(simulated.stderr)")

        func cliReport() async throws -> String? {
            let r = try await Abctl.run(["report", Self.experiment, "--format", "json", "--db", db])
            #expect(r.status == 0, "\(r.stderr)")
            return Self.generatedAt(r.stdout)
        }
        #expect(try await cliReport() == Self.end)
        let server = try await ServeProcess.start(database: db)
        let api = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report")
        await server.stop()
        #expect(api.status == 200, "\(api.text.prefix(300))")
        #expect(Self.generatedAt(api.text) == Self.end, "\(api.text.prefix(300))")

        // A real event, stored after the story: the store no longer ends where the story did.
        let nowDate = Date()
        let now = ISO8601DateFormatter().string(from: nowDate)
        let line = #"{"user_id":"real-1","event_id":"t1","type":"trial_started","ts":"\#(now)","product_id":"chorus.plus.monthly"}"#
        let ingested = try await Abctl.run(["ingest", "-", "--db", db], stdin: line + "\n")
        #expect(ingested.status == 0, "\(ingested.stderr)")
        let after = try #require(try await cliReport())
        // Compared as times, not as text: "…:24.621Z" is after "…:24Z" but sorts before it.
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let afterDate = try #require(fractional.date(from: after) ?? ISO8601DateFormatter().date(from: after), "\(after)")
        #expect(after != Self.end && afterDate.timeIntervalSince1970 >= nowDate.timeIntervalSince1970.rounded(.down), "\(after) against \(now)")
    }
}
