import Foundation
import Testing
import TestSupport

/// `--db` (or `ABCTL_DB`) picks the store for every command that takes it. A PostgreSQL server
/// that cannot be reached is exit 3 with a message naming host, port and database, never the password.
@Suite struct StoreLocationTests {
    static let url = "postgres://abctl:s3cret-pw@127.0.0.1:1/abctl"

    @Test(arguments: [["ingest", "-", "--db", url], ["report", "--db", url], ["simulate", "--users", "10", "--db", url],
                      ["serve", "--port", "0", "--db", url], ["demo", "--users", "10", "--db", url]])
    func anUnreachablePostgresIsAClearError(_ arguments: [String]) async throws {
        let r = try await Abctl.run(arguments, stdin: "")
        #expect(r.status == 3, "\(arguments[0]): \(r.stderr)")
        #expect(r.stderr.contains("abctl: error: cannot open the event store: cannot connect to PostgreSQL host 127.0.0.1 port 1 database abctl"), "\(r.stderr)")
        #expect(!r.stderr.contains("s3cret"))
        #expect(!FileManager.default.fileExists(atPath: Abctl.packageRoot + "/postgres:"), "no SQLite file made of the URL")
    }

    @Test func abctlDBWorksLikeTheFlag() async throws {
        let r = try await Abctl.run(["report"], stdin: "", environment: ["ABCTL_DB": "postgresql://u:s3cret-pw@127.0.0.1:1/db"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("cannot connect to PostgreSQL host 127.0.0.1 port 1 database db"), "\(r.stderr)")
        #expect(!r.stderr.contains("s3cret"))
    }
}
