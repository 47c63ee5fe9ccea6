import Foundation
import TestSupport
import Testing

@Suite struct ValidateCommandTests {
    @Test func theShippedExperimentsPass() async throws {
        let r = try await Abctl.run(["validate", "Experiments/"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("0 errors"))
    }

    @Test func defaultsToExperimentsFolder() async throws {
        let r = try await Abctl.run(["validate"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("5 experiments"))
    }

    func brokenFolder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        let good = try String(contentsOfFile: folder.path + "/chorus-trial-length.json", encoding: .utf8)
        folder.write("chorus-trial-length.json", good.replacingOccurrences(of: "\"trial_days\": 7", with: "\"trial_days\": 45")
            .replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"Running\""))
        folder.write("typo.json", "{\n  \"id\": \"typo\",\n  \"name\": \"x\" \"status\": \"draft\"\n}\n")
        return folder
    }

    @Test func textFormatGivesFileLineColumnAndExitsOne() async throws {
        let folder = try brokenFolder()
        let r = try await Abctl.run(["validate", "."], in: folder.path)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("chorus-trial-length.json:7:13: error: unknown status 'Running'"), "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("chorus-trial-length.json:") && $0.contains("error: trial_days 45 is out of range") })
        #expect(lines.contains("typo.json:3:15: error: not valid JSON: unexpected '\"'; expected ',' or '}' (is a comma missing?)"))
        #expect(lines.contains("    hint: did you mean 'running'?"))
        #expect(lines.last?.contains("3 errors") == true, "\(lines.last ?? "")")
    }

    @Test func jsonFormatIsMachineReadable() async throws {
        let folder = try brokenFolder()
        let r = try await Abctl.run(["validate", folder.path, "--format", "json"])
        #expect(r.status == 1)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(root["valid"] as? Bool == false)
        #expect(root["errors"] as? Int == 3)
        let diagnostics = try #require(root["diagnostics"] as? [[String: Any]])
        #expect(Set(diagnostics.compactMap { $0["code"] as? String }) == ["unknown_status", "trial_days_out_of_range", "invalid_json", "checks_skipped"])
        // The note of checks skipped because typo.json is not JSON is a note, not a fourth error.
        #expect(diagnostics.filter { $0["severity"] as? String == "note" }.compactMap { $0["code"] as? String } == ["checks_skipped"])
        #expect(diagnostics.allSatisfy { ($0["line"] as? Int ?? 0) > 0 && ($0["column"] as? Int ?? 0) > 0 && $0["file"] is String })
    }

    @Test func githubFormatPrintsAnnotations() async throws {
        let folder = try brokenFolder()
        let r = try await Abctl.run(["validate", "--format=github", "."], in: folder.path)
        #expect(r.status == 1)
        #expect(r.stdout.contains("::error file=chorus-trial-length.json,line=7,col=13,title=abctl validate%3A unknown_status::unknown status 'Running'. Hint: did you mean 'running'?"), "\(r.stdout)")
        #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }.count == 3)
    }

    /// CI's view of one changed file: a new experiment checked alone is checked against its folder,
    /// every overlapping file named, the new one first; a running experiment past its end only warns.
    @Test func oneFileIsCheckedAgainstItsFolder() async throws {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        let copy = try String(contentsOfFile: folder.path + "/chorus-paywall-copy.json", encoding: .utf8)
        folder.write("new-test.json", copy.replacingOccurrences(of: "\"id\": \"chorus-paywall-copy\"", with: "\"id\": \"new-test\"")
            .replacingOccurrences(of: "\"range\": [0.0, 0.4]", with: "\"range\": [0.3, 0.8]"))
        let r = try await Abctl.run(["validate", "new-test.json"], in: folder.path)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let errors = r.stdout.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 1, "\(r.stdout)")
        #expect(errors.first?.hasPrefix("new-test.json:13:16: error: namespace 'paywall' range [0.3, 0.8) at new-test.json:13:16 overlaps running experiments ") == true, "\(r.stdout)")
        for other in ["'chorus-paywall-copy' [0, 0.4) at chorus-paywall-copy.json:13:16", "'chorus-trial-length' [0.4, 0.7) at chorus-trial-length.json:12:16",
                      "'chorus-discount-framing' [0.7, 1) at chorus-discount-framing.json:12:16"] {
            #expect(errors.first?.contains(other) == true, "\(other) in \(r.stdout)")
        }
        #expect(r.stdout.contains("2 files checked (1 experiment): 1 error, 0 warnings"), "\(r.stdout)")

        // Moved into a slice of its own and stopped by its end date while still "running": valid, with a warning.
        folder.write("new-test.json", copy.replacingOccurrences(of: "\"id\": \"chorus-paywall-copy\"", with: "\"id\": \"new-test\"")
            .replacingOccurrences(of: "\"namespace\": { \"id\": \"paywall\"", with: "\"namespace\": { \"id\": \"other\"")
            .replacingOccurrences(of: "\"end\": null", with: "\"end\": \"2026-12-20T00:00:00Z\""))
        let late = try await Abctl.run(["validate", "new-test.json"], in: folder.path, environment: ["ABCTL_NOW": "2026-12-21T00:00:00Z"])
        #expect(late.status == 0, "\(late.stdout)\(late.stderr)")
        #expect(late.stdout.contains("new-test.json:9:10: warning: the experiment is running but its 'end' (2026-12-20T00:00:00Z) has passed: it assigns nobody new"), "\(late.stdout)")
        #expect(late.stdout.contains("0 errors, 1 warning"), "\(late.stdout)")
        let early = try await Abctl.run(["validate", "new-test.json", "--format", "json"], in: folder.path, environment: ["ABCTL_NOW": "2026-12-19T00:00:00Z"])
        #expect(early.status == 0 && early.stdout.contains("\"warnings\":0"), "\(early.stdout)")
    }

    @Test func usageErrorsExitTwoWithADidYouMean() async throws {
        let r = try await Abctl.run(["validate", "--fromat", "json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("abctl: error: Unknown option '--fromat'. Did you mean '--format'?"))
        let bad = try await Abctl.run(["validate", "--format", "xml"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("expected one of: text, json, github"))
        let sub = try await Abctl.run(["valdate"])
        #expect(sub.status == 2 && sub.stderr.contains("Did you mean 'validate'?"))
    }

    /// A path that does not exist is a usage error (exit 2); an empty folder is a failed check.
    @Test func missingPathIsAUsageErrorAndAnEmptyFolderFails() async throws {
        let r = try await Abctl.run(["validate", "/nonexistent/abctl"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("abctl: error: no such file or folder: '/nonexistent/abctl'"), "\(r.stderr)")
        let empty = TemporaryFolder()
        let e = try await Abctl.run(["validate", empty.path])
        #expect(e.status == 1)
        #expect(e.stdout.contains("error: no experiment files in this folder"), "\(e.stdout)")
    }

    @Test func helpIsTheSameThreeWays() async throws {
        let a = try await Abctl.run(["help", "validate"]), b = try await Abctl.run(["validate", "--help"]), c = try await Abctl.run(["validate", "-h"])
        #expect(a.status == 0 && a.stdout == b.stdout && b.stdout == c.stdout)
        for section in ["OVERVIEW:", "USAGE: abctl validate", "ARGUMENTS:", "OPTIONS:", "--format <format>"] {
            #expect(a.stdout.contains(section), "\(section)")
        }
        let top = try await Abctl.run(["--help"])
        #expect(top.status == 0 && top.stdout.contains("SUBCOMMANDS:") && top.stdout.contains("validate"))
    }
}

@Suite struct ValidateConditionTests {
    @Test func conditionsAreCheckedDeeply() async throws {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        let good = try String(contentsOfFile: folder.path + "/chorus-trial-length.json", encoding: .utf8)
        folder.write("chorus-trial-length.json", good.replacingOccurrences(
            of: "\"coverage\": 1.0,", with: "\"coverage\": 1.0,\n  \"condition\": { \"country\": { \"$regex\": \"([\" }, \"age\": { \"$gte\": 18, \"$gtee\": 3 } },"))
        let r = try await Abctl.run(["validate", "."], in: folder.path)
        #expect(r.status == 1)
        #expect(r.stdout.contains("error: condition.country.$regex: the regular expression '([' does not compile"), "\(r.stdout)")
        #expect(r.stdout.contains("error: unknown condition operator '$gtee'"))
        #expect(r.stdout.contains("hint: did you mean '$gte'?"))
        #expect(r.stdout.contains("2 errors"))
    }
}

/// A corpus of broken files, one problem each (Fixtures/broken), against the exact expected
/// output: every line, column, message and hint (Fixtures/broken-expected.txt, reviewed by hand).
@Suite struct BrokenCorpusTests {
    @Test func everyProblemHasItsExactPositionAndMessage() async throws {
        let corpus = Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures/broken"
        let expected = try String(contentsOfFile: Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures/broken-expected.txt", encoding: .utf8)
        let r = try await Abctl.run(["validate", "."], in: corpus)
        #expect(r.status == 1)
        let got = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(got.count == want.count)
        for (g, w) in zip(got, want) { #expect(g == w) }
        // Each broken file is reported, and nothing else is.
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") && $0 != "products.json" && $0 != "overlap-a.json" }
        for file in files { #expect(r.stdout.contains("\n\(file):") || r.stdout.hasPrefix("\(file):"), "\(file) has no error") }
    }
}
