import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// `placements.json`, holdouts (`kind: "holdout"`), `paywall: null` arms and `status: "shipped"`:
/// each problem with its own code at its own line and column.
@Suite struct PlacementsValidationTests {
    func validate(_ files: [String: String]) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        for (name, text) in files { folder.write(name, text) }
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func errors(_ report: ExperimentLoader.Report) -> [String] {
        report.diagnostics.filter { $0.severity == .error }.map { "\(($0.file as NSString).lastPathComponent):\($0.position.line):\($0.position.column) \($0.code)" }
    }

    static let placements = """
    { "$schema": "schema.json",
      "placements": {
        "onboarding_end": {
          "default": { "offering": "chorus_plus", "trial_days": 3, "copy": { "strategy": "static", "text": "Hear every bird." } },
          "audiences": [
            { "name": "returning", "condition": { "sessions": { "$gte": 5 } }, "experiment": "exp-a" },
            { "name": "everyone", "paywall": null } ] },
        "feature_gate": { "default": null } } }
    """

    @Test func aValidFolderLoadsPlacementsInFileOrder() throws {
        let report = validate(["a.json": validExperiment, "placements.json": Self.placements])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let catalog = try #require(report.catalog)
        #expect(catalog.placements.map(\.id) == ["onboarding_end", "feature_gate"])
        let p = try #require(catalog.placement("onboarding_end"))
        #expect(p.defaultPaywall?.trialDays == 3)
        #expect(p.audiences.map(\.name) == ["returning", "everyone"])
        #expect(p.audiences[0].experimentID == "exp-a")
        guard case .paywall(nil) = p.audiences[1].shows else { Issue.record("expected a null paywall"); return }
        #expect(catalog.placement("feature_gate")?.defaultPaywall == nil)
    }

    @Test func placementProblemsArePointedAt() {
        let broken = """
        { "placements": {
            "Bad Id": { "default": null },
            "p": {
              "default": { "offering": "nope", "trial_days": 40, "copy": { "strategy": "static", "text": "x" } },
              "audiences": [
                { "name": "a", "experiment": "exp-b" },
                { "name": "a", "condition": { "x": { "$gtt": 1 } }, "paywall": null },
                { "name": "both", "experiment": "exp-a", "paywall": null },
                { "name": "none" },
                { "name": "h", "experiment": "hold" } ] } } }
        """
        let holdout = #"{"id": "hold", "name": "Holdout", "kind": "holdout", "fraction": 0.05, "status": "running"}"#
        let report = validate(["a.json": validExperiment, "hold.json": holdout, "placements.json": broken])
        #expect(errors(report) == [
            "placements.json:2:5 bad_placement_id",
            "placements.json:4:32 unknown_offering",
            "placements.json:4:54 trial_days_out_of_range",
            "placements.json:6:38 unknown_experiment",
            "placements.json:7:46 unknown_condition_operator",
            "placements.json:7:19 duplicate_audience",
            "placements.json:8:61 audience_shows_two",
            "placements.json:9:9 missing_key",
            "placements.json:10:38 holdout_in_placement",
        ], "\(report.diagnostics)")
        #expect(report.catalog == nil)
    }

    @Test func anAudienceAfterACatchAllIsNeverReached() {
        let text = """
        { "placements": { "p": { "default": null, "audiences": [
            { "name": "all", "paywall": null },
            { "name": "late", "experiment": "exp-a" } ] } } }
        """
        let report = validate(["a.json": validExperiment, "placements.json": text])
        #expect(errors(report).isEmpty)
        let warning = report.diagnostics.first { $0.code == "unreachable_audience" }
        #expect(warning?.severity == .warning && warning?.position.line == 3)
        #expect(report.catalog != nil)
    }

    @Test func placementsAloneAreCheckedAgainstTheirFolder() {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        folder.write("a.json", validExperiment)
        folder.write("placements.json", #"{"placements": {"p": {"default": null, "audiences": [{"name": "x", "experiment": "exp-z"}]}}}"#)
        let report = withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path + "/placements.json"]) }
        #expect(report.diagnostics.map(\.code) == ["unknown_experiment"])
    }

    @Test func aHoldoutHasTwoImplicitArms() throws {
        let holdout = #"{"$schema": "schema.json", "id": "hold", "name": "Holdout", "kind": "holdout", "fraction": 0.1, "status": "running", "sticky": true}"#
        let report = validate(["hold.json": holdout])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let h = try #require(report.catalog?.experiment("hold"))
        #expect(h.isHoldout && h.fraction == 0.1 && !h.sticky)
        #expect(h.variants.map(\.key) == ["holdout", "general"])
        #expect(h.variants.map(\.weight) == [0.1, 0.9])
        #expect(h.variants.allSatisfy { $0.paywall == nil })
    }

    @Test(arguments: [
        (#""fraction": 0.3"#, "fraction_out_of_range"),
        (#""fraction": 0.1, "variants": []"#, "holdout_variants"),
        (#""kind": "holdoutt", "fraction": 0.1"#, "unknown_kind"),
    ])
    func holdoutProblems(members: String, code: String) {
        var text = #"{"id": "hold", "name": "Holdout", "kind": "holdout", "status": "running", \#(members)}"#
        if members.contains("holdoutt") { text = #"{"id": "hold", "name": "Holdout", "status": "running", \#(members)}"# }
        #expect(errors(validate(["hold.json": text])).contains { $0.hasSuffix(code) })
    }

    @Test func aNullPaywallArmIsValid() throws {
        let control = #"""
        "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none",
              "copy": { "strategy": "static", "text": "Hear every bird." } }
        """#
        let text = validExperiment.replacingOccurrences(of: control, with: #""paywall": null"#)
        #expect(text != validExperiment)
        let report = validate(["a.json": text])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        #expect(try #require(report.catalog?.experiment("exp-a")).variants[0].paywall == nil)
    }

    @Test(arguments: [
        (#""status": "shipped", "winner": "name", "end": "2026-12-20T00:00:00Z""#, nil),
        (#""status": "shipped", "end": "2026-12-20T00:00:00Z""#, "missing_winner"),
        (#""status": "shipped", "winner": "nam", "end": "2026-12-20T00:00:00Z""#, "unknown_winner"),
        (#""status": "shipped", "winner": "name""#, "shipped_without_end"),
        (#""status": "running", "winner": "name""#, "winner_without_shipped"),
    ] as [(String, String?)])
    func shippedNeedsAWinnerAndAnEnd(members: String, code: String?) throws {
        let text = validExperiment.replacingOccurrences(of: #""status": "running","#, with: members + ",")
            .replacingOccurrences(of: #""end": null,"#, with: "")
        let report = validate(["a.json": text])
        if let code {
            #expect(errors(report).contains { $0.hasSuffix(code) }, "\(report.diagnostics)")
        } else {
            #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
            let e = try #require(report.catalog?.experiment("exp-a"))
            #expect(e.status == .shipped && e.winnerVariant?.key == "name")
        }
    }
}
