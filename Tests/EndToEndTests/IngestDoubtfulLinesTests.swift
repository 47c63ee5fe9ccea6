import Foundation
import TestSupport
import Testing

/// Doubtful event lines through `abctl ingest`: each is refused on
/// stderr as `LINE: field: reason` and not stored, the good lines of the same file are (ingest keeps
/// good lines, docs/Contract.md), and the command exits 1. `ts` is held to `ABCTL_NOW` here.
@Suite struct IngestDoubtfulLinesTests {
    @Test func eachDoubtfulLineIsRefusedNamingItsFieldAndTheGoodLinesAreStored() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        let ts = "2026-12-01T10:00:00Z"
        let doubtful: [(String, String)] = [
            (#""type":"purchased","revenue":-5,"ts":"\#(ts)""#, "revenue"),
            (#""type":"converted","revenue":-0.01,"ts":"\#(ts)""#, "revenue"),
            (#""type":"refunded","revenue":5,"ts":"\#(ts)""#, "revenue"),
            (#""type":"exposure","experiment":"chorus-trial-length","variant":"trial-3d","revenue":50,"ts":"\#(ts)""#, "revenue"),
            (#""type":"trial_started","trail_days":7,"ts":"\#(ts)""#, "trail_days"),
            (#""type":"renewed","revenue":9.99,"ts":"2099-01-01T00:00:00Z""#, "ts"),
        ]
        var lines: [String] = []
        for (i, (keys, _)) in doubtful.enumerated() {
            lines.append(#"{"event_id":"g\#(i)","type":"exposure","user_id":"u\#(i)","ts":"\#(ts)","experiment":"chorus-trial-length","variant":"trial-3d"}"#)
            lines.append(#"{"event_id":"b\#(i)","user_id":"u\#(i)",\#(keys)}"#)
        }
        let r = try await Abctl.run(["ingest", "-", "--db", folder.path + "/events.sqlite", "--experiments", folder.path + "/Experiments"],
                                    stdin: lines.joined(separator: "\n") + "\n", environment: ["ABCTL_NOW": "2026-12-02T00:00:00Z"])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("stored \(doubtful.count), duplicate 0, rejected \(doubtful.count)"), "\(r.stdout)")
        for (i, (_, field)) in doubtful.enumerated() {
            #expect(r.stderr.contains("\(2 * i + 2): \(field): "), "line \(2 * i + 2) should name \(field): \(r.stderr)")
        }
        #expect(r.stderr.contains("did you mean 'trial_days'?"), "\(r.stderr)")
        let rows = try await ChildProcess.run("/usr/bin/sqlite3", [folder.path + "/events.sqlite", "SELECT event_id FROM events ORDER BY event_id"])
        let stored = rows.stdout.split(separator: "\n").map(String.init)
        #expect(stored == doubtful.indices.map { "g\($0)" }, "\(stored)")
    }
}
