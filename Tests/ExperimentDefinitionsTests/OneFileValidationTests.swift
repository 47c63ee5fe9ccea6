import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// CI's view of one changed file: the file is checked against the rest of its
/// folder, every problem of a prompt shows at once with a hint for its rule, and a running
/// experiment past its `end` is a warning.
@Suite struct OneFileValidationTests {
    /// A folder with products.json and `files`; `check` names the paths to validate, relative to it.
    func validate(_ files: [String: String], check: [String], now: Date = Date()) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        for (name, text) in files { folder.write(name, text) }
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: check.map { folder.path + "/" + $0 }, now: now) }
    }

    func experiment(_ id: String, range: String, status: String = "running") -> String {
        validExperiment.replacingOccurrences(of: "exp-a", with: id).replacingOccurrences(of: "[0.0, 0.5]", with: range)
            .replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"\(status)\"")
    }

    func errors(_ report: ExperimentLoader.Report) -> [Diagnostic] { report.diagnostics.filter { $0.severity == .error } }

    @Test func oneFileIsCheckedAgainstEveryOverlappingSiblingAndNamesItselfFirst() throws {
        let files = [
            "new.json": experiment("new", range: "[0.3, 0.8]"),
            "a.json": experiment("exp-a", range: "[0.0, 0.5]"),
            "b.json": experiment("exp-b", range: "[0.5, 1.0]"),
            "c.json": experiment("exp-c", range: "[0.8, 1.0]"),
            "d.json": experiment("exp-d", range: "[0.0, 1.0]", status: "stopped"),
        ]
        let report = validate(files, check: ["new.json"])
        let overlap = try #require(errors(report).first, "\(report.diagnostics)")
        #expect(errors(report).map(\.code) == ["namespace_overlap"])
        #expect(overlap.file.hasSuffix("/new.json"))
        #expect(overlap.position == SourcePosition(line: 9, column: 16))
        // Every file involved, the new one first, each with line and column; c ([0.8, 1)) and the stopped d are not involved.
        let message = overlap.message
        let places = ["new.json:9:16", "a.json:9:16", "b.json:9:16"].map { message.range(of: "/" + $0)?.lowerBound }
        #expect(places.allSatisfy { $0 != nil }, "\(message)")
        #expect(places.compactMap { $0 } == places.compactMap { $0 }.sorted(), "\(message)")
        #expect(message.contains("'exp-a' [0, 0.5)") && message.contains("'exp-b' [0.5, 1)"), "\(message)")
        #expect(!message.contains("c.json") && !message.contains("d.json"), "\(message)")
        // Only what was asked about is reported: the siblings' own problems are theirs.
        #expect(report.files.filter { $0.hasSuffix(".json") && !$0.hasSuffix("products.json") }.count == 1)
    }

    @Test func theSiblingsOwnProblemsAreNotReported() {
        let report = validate(["new.json": experiment("new", range: "[0.5, 1.0]"), "broken.json": "{ \"id\": ", "other.json": experiment("other", range: "[0.0, 0.5]").replacingOccurrences(of: "\"coverage\": 1.0", with: "\"coverage\": 3")],
                              check: ["new.json"])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        #expect(report.catalog?.experiments.map(\.id) == ["new"])
    }

    @Test func aDuplicateIDInTheFolderIsFoundFromOneFile() throws {
        let report = validate(["a.json": experiment("same", range: "[0.0, 0.5]", status: "draft"), "z.json": experiment("same", range: "[0.5, 1.0]", status: "draft")],
                              check: ["a.json"])
        let d = try #require(errors(report).first)
        #expect(errors(report).map(\.code) == ["duplicate_experiment_id"])
        #expect(d.file.hasSuffix("/a.json") && d.position == SourcePosition(line: 3, column: 9))
        let a = try #require(d.message.range(of: "/a.json:3:9")), z = try #require(d.message.range(of: "/z.json:3:9"))
        #expect(a.lowerBound < z.lowerBound, "\(d.message)")
    }

    @Test func aWholeFolderReportsEachOverlapOnceOnTheLaterFileNamingEveryFile() throws {
        let report = validate(["a.json": experiment("exp-a", range: "[0.0, 0.5]"), "b.json": experiment("exp-b", range: "[0.4, 1.0]"), "c.json": experiment("exp-c", range: "[0.45, 0.6]")], check: ["."])
        let overlaps = errors(report).filter { $0.code == "namespace_overlap" }
        #expect(overlaps.map { ($0.file as NSString).lastPathComponent } == ["b.json", "c.json"], "\(overlaps)")
        // c overlaps both a and b, and says so in one error.
        let c = try #require(overlaps.last)
        #expect(c.message.contains("a.json:9:16") && c.message.contains("b.json:9:16") && c.message.contains("experiments 'exp-a'"), "\(c.message)")
    }

    @Test func everyProblemOfAPromptShowsAtOnceWithTheHintOfItsRule() throws {
        let broken = validExperiment
            .replacingOccurrences(of: "\"Notes: {{ brief }}\"", with: "\"Notes: {{ breif }} for {{ custom.userName }} }} and {{ user.bio }}\"")
            .replacingOccurrences(of: "every song named. Chorus can help.", with: "every song named! Chorus can help Chorus fans?")
            .replacingOccurrences(of: "\"max_words\": 30", with: "\"max_words\": 5")
        let report = validate(["a.json": broken], check: ["a.json"])
        let prompt = errors(report).filter { $0.position.line == 21 }
        #expect(prompt.count == 4, "\(prompt)")
        let hints = prompt.compactMap(\.hint)
        #expect(hints.contains("did you mean {{ brief }}?"), "\(hints)")
        #expect(prompt.contains { $0.message.contains("'}}' without a matching '{{'") })
        #expect(prompt.contains { $0.message.contains("{{ user.bio }}") && $0.hint == "a prompt's only placeholder is {{ brief }}; describe the user through brief rules" })
        #expect(prompt.contains { $0.message.contains("prompt uses {{ custom.userName }}") })
        // No "prompt has no {{ brief }}" warning when the brief is merely misspelt: the error says so.
        #expect(!report.diagnostics.contains { $0.code == "prompt_without_brief" })

        let fallback = errors(report).filter { $0.code == "fallback_breaks_guard" }
        #expect(Set(fallback.map { String($0.message.split(separator: ":")[0]) }) == [
            "the fallback breaks its own guard's max_words", "the fallback breaks its own guard's forbid", "the fallback breaks its own guard's mention_once",
        ], "\(fallback)")
        #expect(fallback.count == 4, "\(fallback)")
        let hintByRule = Dictionary(fallback.map { ($0.message, $0.hint ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(hintByRule.contains { $0.key.contains("max_words") && $0.value == "shorten the fallback to at most 5 words" })
        #expect(hintByRule.contains { $0.key.contains("\"!\"") && $0.value == "take \"!\" out of the fallback (listed in guard.forbid)" })
        #expect(hintByRule.contains { $0.key.contains("\"?\"") && $0.value == "take \"?\" out of the fallback (listed in guard.forbid)" })
        #expect(hintByRule.contains { $0.key.contains("mention_once") && $0.value == "name \"Chorus\" exactly once in the fallback (guard.mention_once)" })
    }

    @Test func everyProblemOfATemplateShowsAtOnce() throws {
        let broken = validExperiment.replacingOccurrences(of: "\"{{ custom.userName }}, hear", with: "\"{{ brief }} {{ custom.2x }} {{ custom.city }}, hear")
        let report = validate(["a.json": broken], check: ["a.json"])
        let template = errors(report).filter { $0.position.line == 17 }
        #expect(template.count == 3, "\(template)")
        #expect(template.contains { $0.message.contains("template uses {{ brief }}") && $0.hint == "write {{ custom.NAME }}" })
        #expect(template.contains { $0.hint == "a variable name is letters, digits and '_', not starting with a digit, e.g. {{ custom.userName }}" })
        #expect(template.contains { $0.code == "placeholder_without_default" && $0.message.contains("custom.city") })
    }

    @Test(arguments: [
        ("running", "2026-12-10T00:00:00Z", "2026-12-11T00:00:00Z", true),
        ("running", "2026-12-10T00:00:00Z", "2026-12-10T00:00:00Z", true),
        ("running", "2026-12-10T00:00:00Z", "2026-12-09T23:59:59Z", false),
        ("stopped", "2026-12-10T00:00:00Z", "2026-12-11T00:00:00Z", false),
    ])
    func aRunningExperimentPastItsEndIsAWarning(status: String, end: String, now: String, warns: Bool) throws {
        let file = experiment("exp-a", range: "[0.0, 0.5]", status: status).replacingOccurrences(of: "\"end\": null", with: "\"end\": \"\(end)\"")
        let report = validate(["a.json": file], check: ["a.json"], now: try #require(RFC3339.parse(now)))
        #expect(report.errorCount == 0, "\(report.diagnostics)")
        #expect(report.catalog != nil)
        let warning = report.diagnostics.first { $0.code == "running_after_end" }
        #expect((warning != nil) == warns, "\(report.diagnostics)")
        if let warning {
            #expect(warning.severity == .warning && warning.position == SourcePosition(line: 7, column: 10))
            #expect(warning.message.contains(end), "\(warning.message)")
        }
    }
}
