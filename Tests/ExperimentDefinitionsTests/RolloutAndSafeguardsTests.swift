import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// `rollout` and `safeguards` in experiment files: defaults, and every problem at its file:line:column.
@Suite struct RolloutAndSafeguardsTests {
    func validate(_ files: [String: String]) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        for (name, text) in files { folder.write(name, text) }
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func with(_ extra: String) -> String {
        validExperiment.replacingOccurrences(of: "  \"forced\": { \"qa-1\": \"ai\" },", with: "  \"forced\": { \"qa-1\": \"ai\" },\n" + extra)
    }

    @Test func defaultsAndAFullRollout() throws {
        let text = with("""
          "rollout": { "stages": [ { "share": 0.05, "hours": 24 }, { "share": 0.25, "hours": 48 }, { "share": 1.0 } ] },
          "safeguards": { "metrics": ["day0_cancel_rate", "refund_rate"] },
        """)
        let report = validate(["a.json": text])
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let e = try #require(report.catalog?.experiments.first)
        #expect(e.rollout?.stages == [.init(share: 0.05, hours: 24), .init(share: 0.25, hours: 48), .init(share: 1.0)])
        let s = try #require(e.safeguards)
        #expect(s.metrics.map(\.name) == ["day0_cancel_rate", "refund_rate"])
        #expect(s.action == .stopArm && s.alpha == 0.05 && s.minUsers == 300 && s.checkMinutes == 15 && s.minimumHarm == 0.2)
        // Without `metrics`, the guardrails are watched.
        let bare = try #require(validate(["b.json": with("  \"safeguards\": { \"action\": \"stop_experiment\", \"alpha\": 0.01, \"min_users\": 50, \"check_minutes\": 1, \"minimum_harm\": 0.5 },\n")]).catalog?.experiments.first?.safeguards)
        #expect(bare.metrics.map(\.name) == ["day0_cancel_rate"] && bare.action == .stopExperiment && bare.alpha == 0.01 && bare.minUsers == 50 && bare.checkMinutes == 1 && bare.minimumHarm == 0.5)
    }

    @Test func stagePositionsFollowTheClock() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let r = Rollout(stages: [.init(share: 0.05, hours: 24), .init(share: 0.25, hours: 48), .init(share: 1.0)])
        #expect(r.position(at: start.addingTimeInterval(-10), start: start).index == 0)
        #expect(r.position(at: start.addingTimeInterval(24 * 3600 - 1), start: start).share == 0.05)
        #expect(r.position(at: start.addingTimeInterval(24 * 3600), start: start) == .init(index: 1, share: 0.25, endsAt: start.addingTimeInterval(72 * 3600)))
        #expect(r.position(at: start.addingTimeInterval(72 * 3600), start: start) == .init(index: 2, share: 1.0, endsAt: nil))
    }

    @Test func problemsAreReportedWhereTheyAre() throws {
        let text = with("""
          "rollout": { "stages": [ { "share": 0.5, "hours": 24 }, { "share": 0.25, "hours": -1 }, { "share": 1.0, "hours": 3 } ] },
          "safeguards": { "metrics": ["revenue_per_user", "refund_rate_d14", "day0_cancel_rat"], "action": "stop_arms", "alpha": 0.7, "min_users": 0, "check_minutes": 0, "every": 1 },
        """)
        let report = validate(["a.json": text])
        let found = report.diagnostics.map { "\($0.position.line):\($0.position.column) \($0.code)" }
        let rolloutLine = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"rollout\"") }! + 1
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[rolloutLine - 1]
        func column(_ needle: String, _ l: Substring) -> Int { l.distance(from: l.startIndex, to: l.range(of: needle)!.lowerBound) + 1 }
        #expect(found.contains("\(rolloutLine):\(column("0.25", line)) rollout_shrinks"), "\(found)")
        #expect(found.contains("\(rolloutLine):\(column("-1", line)) out_of_range"), "\(found)")
        #expect(found.contains("\(rolloutLine):\(column("3 }", line)) last_stage_hours"), "\(found)")
        let codes = report.diagnostics.map(\.code)
        for code in ["safeguard_metric", "unknown_metric", "unknown_safeguard_action", "unknown_key"] { #expect(codes.contains(code), "\(code): \(codes)") }
        #expect(codes.filter { $0 == "safeguard_metric" }.count == 2)
        #expect(codes.filter { $0 == "out_of_range" }.count == 4, "\(codes)")
        #expect(report.diagnostics.contains { $0.message == "unknown metric 'day0_cancel_rat'" && $0.hint == "did you mean 'day0_cancel_rate'?" })
    }

    @Test func minimumHarmIsAPositiveRelativeChangeReportedAtItsPosition() {
        for bad in ["0", "-0.2", "11"] {
            let text = with("  \"safeguards\": { \"metrics\": [\"day0_cancel_rate\"], \"minimum_harm\": \(bad) },\n")
            let report = validate(["a.json": text])
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("minimum_harm") }! + 1
            let l = text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
            let column = l.distance(from: l.startIndex, to: l.range(of: "\"minimum_harm\": ")!.upperBound) + 1
            #expect(report.diagnostics.map { "\($0.position.line):\($0.position.column) \($0.code)" } == ["\(line):\(column) out_of_range"], "\(bad): \(report.diagnostics)")
            #expect(report.diagnostics.first?.message.contains("minimum_harm") == true)
        }
        let wrongType = validate(["a.json": with("  \"safeguards\": { \"metrics\": [\"day0_cancel_rate\"], \"minimum_harm\": \"20%\" },\n")])
        #expect(wrongType.diagnostics.map(\.code) == ["wrong_type"], "\(wrongType.diagnostics)")
    }

    @Test func aRolloutNeedsAStart() {
        let text = with("  \"rollout\": { \"stages\": [ { \"share\": 1.0 } ] },\n").replacingOccurrences(of: "  \"start\": \"2026-12-01T00:00:00Z\",\n", with: "")
        #expect(validate(["a.json": text]).diagnostics.map(\.code) == ["rollout_without_start"])
    }
}
