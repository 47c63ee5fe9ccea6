import Foundation
import Testing
import TestSupport

/// The built binary's commands that take `--db`, run against a real PostgreSQL and against a
/// SQLite file with the same input: what a product manager reads must not depend on the store.
@Suite(.timeLimit(.minutes(3))) struct PostgresCommandsTests {
    static let now = ["ABCTL_NOW": "2026-12-20T00:00:00Z"]

    /// `abctl demo` (validate, simulate, report) writes the same Markdown and HTML reports from
    /// either store, and a second run with the same seed stores nothing new in PostgreSQL.
    @Test func demoWritesTheSameReportsFromPostgresAsFromSQLite() async throws {
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase(prefix: "demo") }
        let folder = TemporaryFolder()
        let common = ["demo", "--users", "3000", "--seed", "7", "--days", "5"]
        // The two stores' demos share nothing, so they run side by side.
        async let fromPostgres = Abctl.run(common + ["--db", url, "--out", folder.path + "/pg"])
        async let fromSQLite = Abctl.run(common + ["--db", folder.path + "/demo.sqlite", "--out", folder.path + "/sqlite"])
        let (pg, sqlite) = try await (fromPostgres, fromSQLite)
        #expect(pg.status == 0, "\(pg.stderr)")
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        #expect(!pg.stdout.contains("abctl-test-secret"), "the password never appears in output")
        #expect(pg.stdout.contains(":PASSWORD@"), "the tour's commands show where the password goes")

        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/sqlite").sorted()
        #expect(written.count == 16, "an HTML, a Markdown and a JSON report per experiment (five with the global holdout), and index.html: \(written)")
        #expect(written.contains("index.html"), "\(written)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/pg").sorted() == written)
        for name in written {
            let fromPG = try String(contentsOfFile: "\(folder.path)/pg/\(name)", encoding: .utf8)
            let fromSQLite = try String(contentsOfFile: "\(folder.path)/sqlite/\(name)", encoding: .utf8)
            #expect(fromPG == fromSQLite, "\(name) differs between the stores")
        }

        let again = try await Abctl.run(common + ["--db", url, "--out", folder.path + "/pg-again"])
        #expect(again.status == 0, "\(again.stderr)")
        let stored = try await onOwnThread { try PostgresCluster.shared().psql("SELECT count(*) FROM events", database: Self.database(of: url)) }
        let storedSQLite = try await Self.sqliteCount(folder.path + "/demo.sqlite")
        #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == storedSQLite, "the rerun stored no event twice")
    }

    /// `abctl ingest` then `abctl report --format json`: the same lines give the same rejections,
    /// the same counts and byte-identical JSON, and ingesting the file again stores nothing.
    @Test func ingestThenReportGiveTheSameJSONFromPostgresAsFromSQLite() async throws {
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase(prefix: "ingest") }
        let folder = TemporaryFolder()
        let lines = Self.events(users: 600)
        let input = folder.path + "/events.ndjson"
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let sqlitePath = folder.path + "/ingest.sqlite"

        let pg = try await Abctl.run(["ingest", input, "--db", url])
        let sqlite = try await Abctl.run(["ingest", input, "--db", sqlitePath])
        #expect(pg.status == 1 && sqlite.status == 1, "one line is rejected: exit 1 (\(pg.stderr), \(sqlite.stderr))")
        #expect(pg.stdout == sqlite.stdout, "the same counts")
        #expect(pg.stderr == sqlite.stderr, "the same rejection")
        #expect(pg.stderr.contains("variant"), "the rejection names the field: \(pg.stderr)")

        let again = try await Abctl.run(["ingest", input, "--db", url])
        #expect(again.status == 1)
        let stored = try await onOwnThread { try PostgresCluster.shared().psql("SELECT count(*) FROM events", database: Self.database(of: url)) }
        #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == (try await Self.sqliteCount(sqlitePath)))

        for experiment in ["chorus-trial-length", "chorus-discount-framing"] {
            let fromPG = try await Abctl.run(["report", experiment, "--format", "json", "--db", url], environment: Self.now)
            let fromSQLite = try await Abctl.run(["report", experiment, "--format", "json", "--db", sqlitePath], environment: Self.now)
            #expect(fromPG.status == 0, "\(fromPG.stderr)")
            #expect(fromPG.stdout.contains("\"users\""), "a report with users")
            #expect(fromPG.stdout == fromSQLite.stdout, "\(experiment): report JSON differs between the stores")
        }
    }

    /// Deterministic events for the shipped experiments: exposures, trials, Day-0 cancels,
    /// conversions with revenue and a refund, a retried event, and one line with no variant.
    static func events(users: Int) -> [String] {
        var lines: [String] = []
        var random = SeededGenerator(seed: 11)
        func ts(_ minutes: Int) -> String {
            let day = 10 + minutes / 1440, hour = (minutes % 1440) / 60, minute = minutes % 60
            return String(format: "2026-11-%02dT%02d:%02d:00Z", day, hour, minute)
        }
        for u in 0..<users {
            let user = "u\(u)"
            let (experiment, variants) = u % 2 == 0
                ? ("chorus-trial-length", ["trial-3d", "trial-7d"])
                : ("chorus-discount-framing", ["percent-off", "months-free", "per-week"])
            let variant = variants[Int(random.next() % UInt64(variants.count))]
            let start = Int(random.next() % 4000)
            lines.append(#"{"event_id":"\#(user)-x","type":"exposure","user_id":"\#(user)","experiment":"\#(experiment)","variant":"\#(variant)","ts":"\#(ts(start))"}"#)
            let roll = random.next() % 100
            guard roll < 60 else { continue }
            lines.append(#"{"event_id":"\#(user)-t","type":"trial_started","user_id":"\#(user)","product_id":"chorus.plus.annual","ts":"\#(ts(start + 3))"}"#)
            if roll < 15 {
                lines.append(#"{"event_id":"\#(user)-c","type":"cancelled","user_id":"\#(user)","ts":"\#(ts(start + 30))"}"#)
            } else if roll < 45 {
                let paid = #"{"event_id":"\#(user)-p","type":"converted","user_id":"\#(user)","revenue":59.99,"currency":"USD","product_id":"chorus.plus.annual","ts":"\#(ts(start + 4320))"}"#
                lines.append(paid)
                if roll < 20 { lines.append(paid) }
                if roll == 44 {
                    lines.append(#"{"event_id":"\#(user)-r","type":"refunded","user_id":"\#(user)","revenue":-59.99,"currency":"USD","ts":"\#(ts(start + 5000))"}"#)
                }
            }
        }
        lines.insert(#"{"event_id":"bad","type":"exposure","user_id":"u0","experiment":"chorus-trial-length","ts":"2026-11-10T00:00:00Z"}"#, at: 7)
        return lines
    }

    static func database(of url: String) -> String { String(url.split(separator: "/").last ?? "") }

    static func sqliteCount(_ path: String) async throws -> String {
        try await ChildProcess.run("/usr/bin/sqlite3", [path, "SELECT count(*) FROM events"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
