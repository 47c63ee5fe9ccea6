import Foundation
import TestSupport
import Testing

/// A longer trial pays later: `abctl simulate` a 3-day against a 7-day trial where the 7-day arm truly
/// earns more per user by day 14 (42% start a trial instead of 35%, the same 9.99 monthly plan), then
/// `abctl report` part-way through. Revenue to date says the 7-day trial earns less, because its recent
/// users are still in their trial; revenue in each user's first 14 days, which compares cohorts of the
/// same age, says it earns more, which is the truth.
@Suite struct HorizonRecoversTruthTests {
    static let experiment = """
    { "id": "trial-length", "name": "3-day or 7-day trial", "status": "running", "start": "2026-11-01T00:00:00Z",
      "metrics": { "primary": "revenue_per_user_d14", "secondary": ["paid_conversion_d14"] },
      "variants": [
        { "key": "trial-3d", "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } } },
        { "key": "trial-7d", "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } } } ] }
    """
    static let truth = """
    { "default": { "annual_share": 0, "refund": 0, "direct_purchase": 0 },
      "experiments": { "trial-length": { "trial-7d": { "trial_start": 0.42 } } } }
    """

    func comparison(_ report: [String: Any], _ metric: String) throws -> [String: Any] {
        let all = try #require(report["comparisons"] as? [[String: Any]])
        return try #require(all.first { $0["variant"] as? String == "trial-7d" && $0["metric"] as? String == metric })
    }

    @Test func theFourteenDayMetricShowsWhatRevenueToDateHides() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/exp", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: folder.path + "/exp/products.json")
        folder.write("exp/trial-length.json", Self.experiment)
        let truth = folder.write("truth.json", Self.truth)
        // 60,000 users arrive over 20 days; the report is read as of day 20, while the last week's users are mid-trial.
        let sim = try await Abctl.run(["simulate", "--users", "60000", "--days", "20", "--seed", "7", "--truth", truth,
                                     "--experiments", folder.path + "/exp", "--db", folder.path + "/t.sqlite"])
        #expect(sim.status == 0, "\(sim.stderr)")
        let r = try await Abctl.run(["report", "trial-length", "--experiments", folder.path + "/exp", "--db", folder.path + "/t.sqlite",
                                   "--until", "2026-11-21T00:00:00Z", "--format", "json"], environment: ["ABCTL_NOW": "2026-12-15T00:00:00Z"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])

        // To date, the 7-day arm looks clearly worse: its interval lies below zero.
        let toDate = try #require(try comparison(report, "revenue_per_user")["absolute_ci"] as? [Double])
        #expect(toDate[1] < 0, "revenue per user to date: \(toDate)")
        // Over each user's first 14 days, it is clearly better: the interval lies above zero,
        // and the chance it earns more is above 99%.
        let d14 = try comparison(report, "revenue_per_user_d14")
        let ci = try #require(d14["absolute_ci"] as? [Double])
        #expect(ci[0] > 0, "revenue per user in the first 14 days: \(ci)")
        #expect((d14["chance_to_win"] as? Double ?? 0) > 0.99)
        // Only users followed 14 days count: those who arrived in the first 6 days, about 30% of each arm.
        let variants = try #require(report["variants"] as? [[String: Any]])
        for v in variants {
            let users = try #require(v["users"] as? Int)
            let followed = try #require((v["metrics"] as? [String: [String: Any]])?["revenue_per_user_d14"]?["denominator"] as? Int)
            #expect(Double(followed) / Double(users) > 0.25 && Double(followed) / Double(users) < 0.35, "\(followed) of \(users)")
        }
        // The verdict is judged on the primary metric, revenue per user by day 14: ship the 7-day trial.
        let decision = try #require(report["decision"] as? [String: Any])
        #expect(decision["verdict"] as? String == "ship" && decision["winner"] as? String == "trial-7d", "\(decision)")
    }
}
