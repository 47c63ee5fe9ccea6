import Foundation
import TestSupport
import Testing

/// `metrics.adjust_for` through the binary (`abctl simulate`, then `abctl report`): with country
/// explaining trial starts (70% in the US, 10% elsewhere, half the users in the US) and a treatment
/// that adds 5 points in every country, the adjusted comparison keeps the plain one under
/// `unadjusted`, its variance is about 1 − (0.5·0.21 + 0.5·0.09) / 0.24 ≈ 37% lower, its interval is
/// narrower and covers the true 5 points. The A/A calibration over 1,000 comparisons is
/// `Tests/SimulationTests/PostStratificationCalibrationTests.swift`.
@Suite struct PostStratificationBinaryTests {
    static let experiment = "ps-lift"
    static let paywall = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
    static let file = """
        { "id": "\(experiment)", "name": "Adjusted by country", "status": "running", "start": "2026-11-01T00:00:00Z",
          "metrics": { "primary": "trial_start_rate", "guardrails": [], "adjust_for": ["country"] },
          "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treat", "paywall": \(paywall) } ] }
        """
    static let truth = """
        { "default": { "by": { "country": { "US": { "trial_start": 0.7 }, "GB": { "trial_start": 0.1 }, "DE": { "trial_start": 0.1 } } } },
          "experiments": { "\(experiment)": { "treat": { "by": { "country": { "US": { "trial_start": 0.75 }, "GB": { "trial_start": 0.15 }, "DE": { "trial_start": 0.15 } } } } } },
          "population": { "country": { "US": 0.5, "GB": 0.25, "DE": 0.25 } } }
        """

    @Test func adjustedIntervalIsNarrowerAndCoversTheTruth() async throws {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: experiments + "/products.json")
        try Self.file.write(toFile: experiments + "/\(Self.experiment).json", atomically: true, encoding: .utf8)
        let truthFile = folder.write("truth.json", Self.truth)
        let db = folder.path + "/ps.sqlite"
        let sim = try await Abctl.run(["simulate", "--users", "20000", "--seed", "31", "--days", "3", "--experiments", experiments, "--db", db, "--truth", truthFile])
        #expect(sim.status == 0, "\(sim.stderr)")
        let run = try await Abctl.run(["report", Self.experiment, "--db", db, "--experiments", experiments, "--format", "json"],
                                      environment: ["ABCTL_NOW": "2026-11-20T00:00:00Z"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let c = try #require((report["comparisons"] as? [[String: Any]])?.first { $0["metric"] as? String == "trial_start_rate" && $0["variant"] as? String == "treat" })
        let plain = try #require(c["unadjusted"] as? [String: Any], "no unadjusted figures: \(c)")
        let reduction = try #require(c["variance_reduction"] as? Double)
        #expect(abs(reduction - 0.375) < 0.05, "variance_reduction \(reduction)")
        let ci = try #require(c["absolute_ci"] as? [Double]), plainCI = try #require(plain["absolute_ci"] as? [Double])
        #expect(ci[1] - ci[0] < plainCI[1] - plainCI[0])
        // The interval's width shrinks as the square root of the variance.
        #expect(abs((ci[1] - ci[0]) / (plainCI[1] - plainCI[0]) - (1 - reduction).squareRoot()) < 0.01)
        #expect(ci[0] < 0.05 && 0.05 < ci[1], "adjusted interval \(ci) misses the true +5 points")
        print("adjust_for through the binary: variance_reduction \(reduction), adjusted interval \(ci), unadjusted \(plainCI)")
        let text = try await Abctl.run(["report", Self.experiment, "--db", db, "--experiments", experiments], environment: ["ABCTL_NOW": "2026-11-20T00:00:00Z"])
        #expect(text.stdout.contains("variance"), "\(text.stdout.prefix(2000))")
    }
}
