import Foundation
import TestSupport
import Testing

/// A broken file gives one line for each real problem, in `abctl validate` and in a refused
/// reload's `last_reload_error`; the checks that needed the file are one note, not false errors.
@Suite struct ValidateCascadeTests {
    @Test func aSyntaxErrorIsOneErrorAndOneNoteInValidate() async throws {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        folder.write("chorus-paywall-copy.json", "{ \"id\": \"chorus-paywall-copy\",\n  \"name\": \"x\" \"status\": \"running\" }\n")
        let r = try await Abctl.run(["validate", "."], in: folder.path)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("    hint:") }.map(String.init)
        #expect(lines.count == 3, "\(r.stdout)")
        #expect(lines[0] == "chorus-paywall-copy.json:2:15: error: not valid JSON: unexpected '\"'; expected ',' or '}' (is a comma missing?)", "\(lines)")
        #expect(lines[1].hasPrefix("chorus-paywall-copy.json:1:1: note: not checked, because this file is not valid JSON: "), "\(lines)")
        #expect(lines[1].contains("'chorus-paywall-copy' (placements.json, audience"), "\(lines)")
        #expect(!r.stdout.contains("which is not in this folder"))
        #expect(lines[2] == "7 files checked (5 experiments): 1 error, 0 warnings, 1 note")

        let github = try await Abctl.run(["validate", ".", "--format", "github"], in: folder.path)
        #expect(github.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }.map { $0.prefix(9) } == ["::error f", "::notice "], "\(github.stdout)")
    }

    @Test func aRefusedReloadListsTheSameLines() async throws {
        let server = try await ServeProcess.start()
        let path = server.experimentsPath + "/chorus-paywall-copy.json"
        try "{ \"id\": \"chorus-paywall-copy\",\n  \"name\": \"x\" \"status\": \"running\" }\n".write(toFile: path, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        let lastError = { () async throws -> Any? in try await server.request("GET", "/healthz").json?["last_reload_error"] }
        #expect(try await eventually { try await lastError() is [String: Any] })
        let problems = (try await lastError() as? [String: Any])?["problems"] as? [String] ?? []
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first?.hasSuffix("chorus-paywall-copy.json:2:15: error: not valid JSON: unexpected '\"'; expected ',' or '}' (is a comma missing?)") == true, "\(problems)")
        #expect(problems.last?.contains("chorus-paywall-copy.json:1:1: note: not checked, because this file is not valid JSON") == true, "\(problems)")
        #expect(!problems.contains { $0.contains("placements.json") && $0.contains("error") })
    }
}
