import Foundation
import TestSupport
import Testing

/// One as-of moment (docs/Reports.md), through the binary and the server: one
/// store reported as of one moment given three ways (`--until`, `ABCTL_NOW`, the endpoint's `until`)
/// gives byte-identical JSON; a store holding only the events before that moment gives the same
/// bytes again, so none of the later events (exposures, trials, payments, renewals, refunds,
/// cancels) counts in any figure.
@Suite struct OneAsOfMomentThreeWaysTests {
    static let experiment = "chorus-trial-length"
    static let moment = "2026-12-20T00:00:00Z"
    static let later = ["ABCTL_NOW": "2027-03-31T00:00:00Z"]

    /// 600 users exposed over 40 days around the moment; trials, payments, renewals, refunds and
    /// cancels before and after it. Each line with its time, so a store can be cut at the moment.
    static func events() -> [(ts: String, line: String)] {
        let start = Date(timeIntervalSince1970: 1_796_083_200)   // 2026-12-01
        let format = ISO8601DateFormatter()
        func at(_ days: Double) -> String { format.string(from: start.addingTimeInterval((days * 86_400).rounded())) }
        var out: [(String, String)] = []
        for i in 0..<600 {
            let user = "u\(i)", arm = i % 2 == 0 ? "trial-3d" : "trial-7d", trial = i % 2 == 0 ? 3.0 : 7.0
            let exposed = Double(i % 40) * 0.97
            func add(_ days: Double, _ body: String) {
                let ts = at(exposed + days)
                out.append((ts, #"{"user_id":"\#(user)","ts":"\#(ts)",\#(body)}"#))
            }
            add(0, #""event_id":"x","type":"exposure","experiment":"\#(experiment)","variant":"\#(arm)","attributes":{"country":"\#(["US", "DE"][i % 2])"}"#)
            guard i % 3 != 0 else { continue }
            add(0.01, #""event_id":"t","type":"trial_started","product_id":"chorus.plus.monthly""#)
            if i % 7 == 0 { add(0.2, #""event_id":"c0","type":"cancelled""#); continue }
            add(trial, #""event_id":"p1","type":"converted","revenue":9.99,"currency":"USD","product_id":"chorus.plus.monthly","store":"app_store""#)
            add(trial + 30, #""event_id":"p2","type":"renewed","revenue":9.99,"currency":"USD","product_id":"chorus.plus.monthly","store":"app_store""#)
            if i % 5 == 0 { add(trial + 31, #""event_id":"r2","type":"refunded","revenue":-9.99,"currency":"USD","store":"app_store""#) }
            else if i % 4 == 0 { add(trial + 35, #""event_id":"c1","type":"cancelled""#) }
        }
        return out
    }

    static func ingest(_ lines: [String], into db: String, experiments: String) async throws {
        let r = try await Abctl.run(["ingest", "-", "--db", db, "--experiments", experiments], stdin: lines.joined(separator: "\n") + "\n", environment: later)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func threeWaysGiveTheSameBytesAndLaterEventsCountNowhere() async throws {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: experiments)
        let all = Self.events()
        let before = all.filter { $0.ts < Self.moment }
        #expect(before.count > 500 && all.count - before.count > 500, "\(before.count) before, \(all.count - before.count) after")
        try await Self.ingest(all.map(\.line), into: folder.path + "/all.sqlite", experiments: experiments)
        try await Self.ingest(before.map(\.line), into: folder.path + "/before.sqlite", experiments: experiments)

        func report(_ db: String, _ arguments: [String], _ environment: [String: String]) async throws -> String {
            let r = try await Abctl.run(["report", Self.experiment, "--format", "json", "--db", folder.path + "/" + db, "--experiments", experiments] + arguments,
                                        environment: environment)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let until = try await report("all.sqlite", ["--until", Self.moment], Self.later)
        let clock = try await report("all.sqlite", [], ["ABCTL_NOW": Self.moment])
        let server = try await ServeProcess.start(environment: Self.later, database: folder.path + "/all.sqlite")
        defer { Task { await server.stop() } }
        let api = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?until=\(Self.moment)")
        #expect(api.status == 200, "\(api.text.prefix(300))")
        let cut = try await report("before.sqlite", [], ["ABCTL_NOW": Self.moment])

        #expect(until.contains(#""generated_at":"\#(Self.moment)""#), "\(until.prefix(300))")
        #expect(until.contains(#""forecast":{"#) && until.contains(#""proceeds_per_user":"#), "the report has money and a forecast to compare")
        #expect(until == clock, "--until and ABCTL_NOW differ")
        #expect(until == api.text.trimmingCharacters(in: .whitespacesAndNewlines), "--until and the endpoint's until differ")
        #expect(until == cut, "events after the moment changed a figure")
        // The later events are there to change figures: read at the later clock, the report differs.
        let whole = try await report("all.sqlite", [], Self.later)
        #expect(whole != until)
    }
}
