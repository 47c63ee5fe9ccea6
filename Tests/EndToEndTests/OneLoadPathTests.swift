import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every command that reads experiment files refuses a folder `abctl validate` rejects, with
/// validate's exit code (1) and its first diagnostic line, and a SIGHUP reload keeps the old snapshot.
@Suite struct OneLoadPathTests {
    /// A way to break the shipped folder, applied to its copy.
    struct Breakage: CustomTestStringConvertible, Sendable {
        var name: String
        var apply: @Sendable (String) throws -> Void
        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(name: "a regex that does not compile") { folder in
            try edit(folder + "/chorus-trial-length.json", #""coverage": 1.0,"#,
                     #""coverage": 1.0, "condition": { "country": { "$regex": "([" } },"#)
        },
        Breakage(name: "$in given a string, not a list") { folder in
            try edit(folder + "/chorus-paywall-copy.json", #""status": "running","#,
                     #""status": "running", "condition": { "country": { "$in": "GB" } },"#)
        },
        Breakage(name: "truncated JSON") { folder in
            try #"{ "id": "chorus-trial-length", "#.write(toFile: folder + "/chorus-trial-length.json", atomically: true, encoding: .utf8)
        },
        Breakage(name: "a lone surrogate in a string") { folder in
            try edit(folder + "/chorus-trial-length.json", #""owner": "growth""#, #""owner": "gro\ud800wth""#)
        },
        Breakage(name: "a duplicate experiment id") { folder in
            try edit(folder + "/chorus-paywall-copy.json", #""id": "chorus-paywall-copy""#, #""id": "chorus-trial-length""#)
        },
    ]

    static func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard text.contains(old) else { throw EditFailed(path: path, old: old) }
        try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: true, encoding: .utf8)
    }

    struct EditFailed: Error { var path: String; var old: String }

    /// Each command that reads experiments, given the folder and a scratch folder for its database and output.
    static func commands(experiments: String, scratch: String) -> [(String, [String], String?)] {
        let db = scratch + "/events.sqlite"
        return [
            ("report", ["report", "--experiments", experiments, "--db", db], nil),
            ("assign", ["assign", "--experiments", experiments, "--user", "u1"], nil),
            ("simulate", ["simulate", "--experiments", experiments, "--users", "10", "--db", db], nil),
            ("demo", ["demo", "--experiments", experiments, "--users", "10", "--db", db, "--out", scratch + "/reports"], nil),
            ("copy check", ["copy", "check", "--experiments", experiments, "--experiment", "chorus-paywall-copy", "--variant", "ai", "--text", "Chorus"], nil),
            ("ingest", ["ingest", "-", "--experiments", experiments, "--db", db], ""),
            ("serve", ["serve", "--port", "0", "--experiments", experiments, "--db", db], nil),
            ("export", ["export", "--format", "growthbook", "--experiments", experiments], nil),
        ]
    }

    @Test(arguments: breakages)
    func everyCommandRefusesWhatValidateRejects(_ breakage: Breakage) async throws {
        let folder = TemporaryFolder(), scratch = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        try breakage.apply(folder.path)

        let validate = try await Abctl.run(["validate", folder.path])
        #expect(validate.status == 1)
        let diagnostic = try #require(validate.stdout.split(separator: "\n").first { $0.contains(": error: ") }.map(String.init))

        for (name, arguments, stdin) in Self.commands(experiments: folder.path, scratch: scratch.path) {
            // Within 30 s: a command that accepted the folder (serve would listen) is killed, and fails the test.
            let r = try await Abctl.run(arguments, stdin: stdin, limit: .seconds(30))
            #expect(r.status == 1, "\(name) exited \(r.status): \(r.stderr)")
            #expect((r.stdout + r.stderr).contains(diagnostic), "\(name) did not say '\(diagnostic)': \(r.stdout)\(r.stderr)")
        }
        // Nothing was written on the way to the refusal.
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/reports"))
    }

    @Test func sighupReloadRefusesABadRegexAndKeepsTheOldSnapshot() async throws {
        let server = try await ServeProcess.start()
        let assign = #"{"user_id": "u1", "attributes": {"country": "GB"}, "experiments": ["chorus-trial-length"]}"#
        let before = try await server.request("POST", "/v1/assign", body: assign)
        #expect(before.status == 200)

        try Self.breakages[0].apply(server.experimentsPath)
        server.signal(SIGHUP)
        #expect(try await eventually { try await server.request("GET", "/metrics").text.contains(#"abctl_reloads_total{result="failed"} 1"#) })
        #expect(await eventually {
            server.logLines.contains { line in
                (line["msg"] as? String)?.hasPrefix("reload failed") == true
                    && ((line["problems"] as? [String]) ?? []).contains { $0.contains("the regular expression '([' does not compile") }
            }
        })
        // The old snapshot still assigns GB users as before.
        let after = try await server.request("POST", "/v1/assign", body: assign)
        #expect(after.status == 200)
        #expect(after.text == before.text)
        #expect(server.isRunning)
    }
}
