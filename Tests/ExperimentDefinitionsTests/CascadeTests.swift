import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// One line per real problem: a file that cannot be read is reported once, and the checks
/// that needed it become one note naming what was skipped; every type error names the type it found.
@Suite struct CascadeTests {
    func validate(_ files: [String: String], products: String? = productsJSON) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        if let products { folder.write("products.json", products) }
        for (name, text) in files { folder.write(name, text) }
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func lines(_ report: ExperimentLoader.Report) -> [String] {
        report.diagnostics.map { "\(($0.file as NSString).lastPathComponent) \($0.severity.rawValue) \($0.code)" }
    }

    let placements = """
    { "placements": { "onboarding_end": {
        "default": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear every bird." } },
        "audiences": [ { "name": "everyone", "experiment": "exp-a" } ] } } }
    """

    @Test func aSyntaxErrorIsNotAlsoAnUnknownExperimentInPlacements() {
        let report = validate(["a.json": "{ \"id\": \"exp-a\", ", "b.json": validExperiment.replacingOccurrences(of: "exp-a", with: "exp-b")
            .replacingOccurrences(of: "[0.0, 0.5]", with: "[0.5, 1.0]"), "placements.json": placements])
        #expect(lines(report) == ["a.json error invalid_json", "a.json note checks_skipped"], "\(report.diagnostics)")
        let note = report.diagnostics[1]
        #expect(note.message.contains("'exp-a' (placements.json, audience 'everyone' of 'onboarding_end') is an experiment of the folder"), "\(note.message)")
        #expect(note.message.contains("is not valid JSON"))
    }

    @Test func aPlacementNamingAnExperimentThatIsNotThereIsStillAnError() {
        let report = validate(["a.json": validExperiment, "placements.json": placements.replacingOccurrences(of: "\"exp-a\"", with: "\"exp-z\"")])
        #expect(lines(report) == ["placements.json error unknown_experiment"])
    }

    @Test func aMisspeltSafeguardMetricIsOneError() {
        let text = validExperiment.replacingOccurrences(of: "\"forced\"", with: "\"safeguards\": { \"metrics\": [\"refund_rat\"] },\n  \"forced\"")
        let report = validate(["a.json": text])
        #expect(lines(report) == ["a.json error unknown_metric"], "\(report.diagnostics)")
        #expect(report.diagnostics.first?.hint == "did you mean 'refund_rate'?")
    }

    @Test func aMisspeltGuardrailIsNotAlsoSafeguardsWatchingNothing() {
        let text = validExperiment.replacingOccurrences(of: "[\"day0_cancel_rate\"]", with: "[\"day0_cancel_rat\"]")
            .replacingOccurrences(of: "\"forced\"", with: "\"safeguards\": { \"action\": \"stop_arm\" },\n  \"forced\"")
        #expect(lines(validate(["a.json": text])) == ["a.json error unknown_metric"])
        // Safeguards with nothing to watch and no refused metric: still the error.
        let empty = validExperiment.replacingOccurrences(of: "\"forced\"", with: "\"safeguards\": { \"metrics\": [] },\n  \"forced\"")
        #expect(lines(validate(["a.json": empty])) == ["a.json error empty_value"])
    }

    @Test func aRefusedVariantIsNotAlsoAnUnknownForcedVariant() {
        // The 'ai' variant is not an object: its one error, not a second one for the forced user pointing at it.
        let text = validExperiment.replacingOccurrences(of: "{ \"key\": \"ai\", \"weight\": 1,", with: "[ \"ai\" ], { \"weight\": 1, \"key\": \"ai2\",")
        let report = validate(["a.json": text])
        #expect(lines(report) == ["a.json error wrong_type"], "\(report.diagnostics)")
    }

    @Test(arguments: [
        (#""trial_days": 7"#, #""trial_days": 1.5"#, "'trial_days' in variant 'ai' paywall must be a whole number, not 1.5"),
        (#""trial_days": 7"#, #""trial_days": "7""#, "'trial_days' in variant 'ai' paywall must be a whole number, not string"),
        (#""key": "ai", "weight": 1"#, #""key": "ai", "weight": -1"#, "weight of variant 'ai' must be positive, not -1"),
        (#""range": [0.0, 0.5]"#, #""range": [0.0, "0.5"]"#, "namespace range must be two numbers [start, end], not a string"),
        (#""range": [0.0, 0.5]"#, #""range": [0.5]"#, "namespace range must be two numbers [start, end], not 1 item"),
    ])
    func typeErrorsNameWhatTheyFound(from: String, to: String, message: String) {
        let report = validate(["a.json": validExperiment.replacingOccurrences(of: from, with: to)])
        #expect(report.diagnostics.map(\.message) == [message])
    }

    @Test(arguments: [
        ("150", "revenue_cap must be an object with exactly one of 'percentile' or 'absolute', not number"),
        (#""150""#, "revenue_cap must be an object with exactly one of 'percentile' or 'absolute', not string"),
        (#"{ "max": 150 }"#, "revenue_cap must be an object with exactly one of 'percentile' or 'absolute', not an object with 'max'"),
    ])
    func aRevenueCapOfTheWrongShapeNamesWhatItFound(value: String, message: String) {
        let text = validExperiment.replacingOccurrences(of: #""guardrails": ["day0_cancel_rate"] }"#,
                                                        with: #""guardrails": ["day0_cancel_rate"], "revenue_cap": "# + value + " }")
        #expect(validate(["a.json": text]).diagnostics.map(\.message) == [message])
    }

    @Test func anEndBeforeStartIsNotAlsoARunningExperimentPastItsEnd() {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        folder.write("a.json", validExperiment.replacingOccurrences(of: #""end": null"#, with: #""end": "2026-11-01T00:00:00Z""#))
        let now = RFC3339.parse("2026-12-05T00:00:00Z")!
        #expect(lines(ExperimentFiles.validate(paths: [folder.path], now: now)) == ["a.json error end_before_start"])
        // An end after the start that has passed is still the warning.
        folder.write("a.json", validExperiment.replacingOccurrences(of: #""end": null"#, with: #""end": "2026-12-02T00:00:00Z""#))
        #expect(lines(ExperimentFiles.validate(paths: [folder.path], now: now)) == ["a.json warning running_after_end"])
    }

    @Test func aNegativeExchangeRateIsNotPositive() {
        let products = productsJSON.replacingOccurrences(of: #"{ "currency": "USD","#, with: #"{ "currency": "USD", "exchange_rates": { "EUR": -1 },"#)
        let report = validate(["a.json": validExperiment], products: products)
        #expect(report.diagnostics.filter { $0.severity == .error }.map(\.message) == ["the rate of EUR must be positive, not -1"])
    }

    @Test func anEmptyFolderIsAnError() {
        let report = validate([:])
        #expect(report.errorCount == 1)
        #expect(report.diagnostics.map(\.code) == ["no_experiments"])
    }

    @Test func theOverlapHintNamesTheFreeSlices() {
        func experiment(_ id: String, _ range: String) -> String {
            validExperiment.replacingOccurrences(of: "exp-a", with: id).replacingOccurrences(of: "[0.0, 0.5]", with: range)
        }
        let report = validate(["a.json": experiment("exp-a", "[0.0, 0.3]"), "b.json": experiment("exp-b", "[0.6, 0.8]"),
                               "c.json": experiment("exp-c", "[0.2, 0.5]")])
        let overlap = report.diagnostics.filter { $0.code == "namespace_overlap" }
        #expect(overlap.count == 1)
        #expect(overlap.first?.file.hasSuffix("c.json") == true)
        #expect(overlap.first?.hint == "free slices of namespace 'paywall': [0.3, 0.6), [0.8, 1); move this experiment's range into one of them")
        #expect(Namespace.freeSlices(taken: [Namespace(id: "p", start: 0, end: 1)]).isEmpty)
    }

    @Test func theMissingWinnerHintNamesNoArm() throws {
        let text = validExperiment.replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"shipped\"")
            .replacingOccurrences(of: "\"end\": null", with: "\"end\": \"2026-12-20T00:00:00Z\"")
        let report = validate(["a.json": text])
        let missing = try #require(report.diagnostics.first { $0.code == "missing_winner" })
        #expect(missing.hint?.contains("\"winner\": \"") == false, "\(missing.hint ?? "")")
        #expect(missing.hint?.contains("abctl report exp-a") == true)
    }
}
