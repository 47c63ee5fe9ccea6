import Foundation
import Testing
import TestSupport

/// Ids over 256 bytes are refused on every path that takes one.
@Suite struct LongIDsTests {
    /// `user_id` and `event_id` are at most 256 bytes; a 1 MiB one is refused naming the
    /// field by `abctl ingest` and `abctl assign` (the API's routes: ServerTests/InProcess/APIEventRejectionsTests).
    @Test func idsOver256BytesAreRefusedByTheCommands() async throws {
        let huge = String(repeating: "u", count: 1 << 20)
        let folder = TemporaryFolder()
        let events = [
            #"{"event_id":"e1","type":"renewed","user_id":"\#(huge)","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"\#(huge)","type":"renewed","user_id":"u","ts":"2026-12-01T10:00:00Z"}"#,
            #"{"event_id":"\#(String(repeating: "é", count: 128))","type":"renewed","user_id":"\#(String(repeating: "u", count: 256))","ts":"2026-12-01T10:00:00Z"}"#,
        ]
        let file = folder.write("events.ndjson", events.joined(separator: "\n") + "\n")
        let ingest = try await Abctl.run(["ingest", file, "--db", folder.path + "/db.sqlite"])
        #expect(ingest.stdout == "stored 1, duplicate 0, rejected 2\n", "256 bytes exactly is allowed")
        #expect(ingest.stderr.contains("1: user_id: is longer than 256 bytes (1048576)"), "\(ingest.stderr.prefix(300))")
        #expect(ingest.stderr.contains("2: event_id: is longer than 256 bytes (1048576)"), "\(ingest.stderr.prefix(300))")

        // abctl assign: `--user` is a usage error; a line of `--users` is skipped and named, the others answered.
        let experiments = Abctl.packageRoot + "/Experiments"
        let cliUser = try await Abctl.run(["assign", "--experiments", experiments, "--user", String(huge.prefix(257))])
        #expect(cliUser.status == 2)
        #expect(cliUser.stderr.contains("'--user' is longer than 256 bytes (257)"), "\(cliUser.stderr)")
        let users = folder.write("users.txt", "a\n\(huge)\nb\n")
        let cliUsers = try await Abctl.run(["assign", "--experiments", experiments, "--users", users, "--format", "text"])
        #expect(cliUsers.status == 1)
        #expect(cliUsers.stderr == "2: user_id: is longer than 256 bytes (1048576)\n")
        #expect(Set(cliUsers.stdout.split(separator: "\n").map { String($0.prefix(2)) }) == ["a ", "b "])
    }
}
