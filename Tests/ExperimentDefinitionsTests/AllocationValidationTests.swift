import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// `allocation` in experiment files: defaults, what a bandit needs, and every problem at
/// its file:line:column.
@Suite struct AllocationValidationTests {
    func validate(_ text: String) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        folder.write("a.json", text)
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func with(_ extra: String) -> String {
        validExperiment.replacingOccurrences(of: "  \"forced\": { \"qa-1\": \"ai\" },", with: "  \"forced\": { \"qa-1\": \"ai\" },\n" + extra)
    }

    func codes(_ text: String) -> [String] { validate(text).diagnostics.map(\.code) }

    @Test func defaultsAndAFullBandit() throws {
        let report = validate(with(#"  "allocation": { "type": "bandit", "reward": "trial_start_rate" },"# + "\n"))
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let a = try #require(report.catalog?.experiments.first?.allocation)
        #expect(a == AllocationConfig(reward: Metric.named("trial_start_rate"), updateHours: 24, minShare: 0.05, burnInUsers: 200))
        #expect(a.rewardDays == 1)
        let full = validate(with(#"  "allocation": { "type": "bandit", "reward": "paid_conversion_d14", "update_hours": 6, "min_share": 0.2, "burn_in_users": 50 },"# + "\n"))
        #expect(full.diagnostics.isEmpty, "\(full.diagnostics)")
        let b = try #require(full.catalog?.experiments.first?.allocation)
        #expect(b.reward.name == "paid_conversion_d14" && b.rewardDays == 14 && b.updateHours == 6 && b.minShare == 0.2 && b.burnInUsers == 50)
        #expect(full.catalog?.experiments.first?.isBandit == true)
    }

    @Test func periodsAreCountedFromStart() {
        let a = AllocationConfig(reward: Metric.named("trial_start_rate"), updateHours: 6)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(a.periodIndex(at: start.addingTimeInterval(-5), start: start) == 0)
        #expect(a.periodIndex(at: start.addingTimeInterval(6 * 3600 - 1), start: start) == 0)
        #expect(a.periodIndex(at: start.addingTimeInterval(6 * 3600), start: start) == 1)
        #expect(a.periodStart(3, start: start) == start.addingTimeInterval(18 * 3600))
    }

    @Test func rewardsMustBeLearnableRates() {
        for (reward, code) in [("paid_conversion", "bandit_reward"), ("day0_cancel_rate", "bandit_reward"), ("revenue_per_user_d7", "bandit_reward"),
                               ("trial_start_rat", "unknown_metric")] {
            #expect(codes(with(#"  "allocation": { "type": "bandit", "reward": "\#(reward)" },"# + "\n")) == [code], "\(reward)")
        }
        #expect(codes(with(#"  "allocation": { "type": "bandit", "reward": "trial_start_rate_d3" },"# + "\n")) == [])
    }

    @Test func problemsAreReportedWhereTheyAre() throws {
        let text = with(#"  "allocation": { "type": "bandits", "reward": "trial_start_rate", "update_hours": 0, "min_share": 0.4, "burn_in_users": 0, "every": 1 },"# + "\n")
        let report = validate(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let lineIndex = try #require(lines.firstIndex { $0.contains("\"allocation\"") })
        let line = lines[lineIndex]
        func column(_ needle: String) -> Int { line.distance(from: line.startIndex, to: line.range(of: needle)!.lowerBound) + 1 }
        let found = report.diagnostics.map { "\($0.position.line):\($0.position.column) \($0.code)" }
        let n = lineIndex + 1
        for expected in ["\(n):\(column("\"bandits\"")) unknown_allocation_type", "\(n):\(column("0, \"min")) out_of_range",
                         "\(n):\(column("0.4")) out_of_range", "\(n):\(column("0, \"every")) out_of_range"] {
            #expect(found.contains(expected), "\(expected): \(found)")
        }
        #expect(report.diagnostics.map(\.code).contains("unknown_key"))
        #expect(report.diagnostics.contains { $0.message.contains("min_share 0.4") && $0.message.contains("1 / 3 arms") })
        #expect(report.diagnostics.contains { $0.hint == "did you mean 'bandit'?" })
    }

    @Test func aBanditNeedsStickyAStartAndNoRollout() {
        let bandit = #"  "allocation": { "type": "bandit", "reward": "trial_start_rate" },"# + "\n"
        #expect(codes(with(bandit + "  \"sticky\": false,\n")) == ["bandit_not_sticky"])
        #expect(codes(with(bandit).replacingOccurrences(of: "  \"start\": \"2026-12-01T00:00:00Z\",\n", with: "")) == ["bandit_without_start"])
        #expect(codes(with(bandit + "  \"rollout\": { \"stages\": [ { \"share\": 1.0 } ] },\n")) == ["bandit_with_rollout"])
        // The first period's weights are the file's; no floor above 1 / arms.
        #expect(codes(with(#"  "allocation": { "type": "bandit", "reward": "trial_start_rate", "min_share": 0.3333333333 },"# + "\n")) == [])
        #expect(codes(with(#"  "allocation": { "reward": "trial_start_rate" },"# + "\n")) == ["missing_key"])
    }
}
