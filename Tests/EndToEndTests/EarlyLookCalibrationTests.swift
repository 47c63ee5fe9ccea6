import Foundation
import TestSupport
import Testing

/// The A/A calibration still holds at early looks with the maturity
/// rule, and with a revenue primary, through the built binary (`abctl simulate`, then
/// `abctl report --format json --until` at each look).
///
/// Each seed simulates `experiments` two-arm A/A experiments at once (every user in all of them,
/// split by each one's own hash seed, so their comparisons are independent), 3-day trials in both
/// arms: the verdict reads `paid_conversion_d6` and `revenue_per_user_d6` (the trial + 3 days'
/// grace). Even experiments have the revenue primary (conversion a guardrail), odd ones the
/// conversion primary (revenue a guardrail), so every report compares both mature forms. The looks
/// are day 10 of 14 days' arrivals (about 40% of users mature: the verdict must never be `ship` or
/// `stop`; it is `keep_running`, or `inconclusive` when the sample ratio check fires by chance, about
/// 1 report in 1,000) and day 14.
///
/// `ABCTL_CALIBRATION=full` (100 seeds) is the calibration: per (look, metric) the share of 5% tests that flag and of
/// 95% intervals that cover 0 must be 5% ± 1.5 and 95% ± 1.5 over 100 seeds × 10 experiments =
/// 1,000 comparisons (a standard error of 0.69 points): 155 s at a load of 3 to 6 on 2 cores, 225 s at 10.
/// By default (`make test`) 30 seeds run in about a minute: nothing decided early, figures printed.
@Suite(.tags(.calibration), .timeLimit(.minutes(20))) struct EarlyLookCalibrationTests {
    static let experiments = 10
    static let users = 1600
    static let looks = ["2026-12-11T00:00:00Z", "2026-12-15T00:00:00Z"]
    static let metrics = ["paid_conversion_d6", "revenue_per_user_d6"]
    static var seeds: Int { CalibrationSize(quick: 30, full: 100).count }

    static func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/exp", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: folder.path + "/exp/products.json")
        let arm = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
        for k in 0..<experiments {
            let (primary, guardrail) = k % 2 == 0 ? ("revenue_per_user", "paid_conversion") : ("paid_conversion", "revenue_per_user")
            folder.write("exp/aa-\(k).json", """
            { "id": "aa-\(k)", "name": "A/A \(k)", "status": "running", "start": "2026-12-01T00:00:00Z",
              "metrics": { "primary": "\(primary)", "guardrails": ["\(guardrail)"] },
              "variants": [ { "key": "a", "paywall": \(arm) }, { "key": "b", "paywall": \(arm) } ] }
            """)
        }
        return folder
    }

    /// One comparison of variant b against a: whether the 5% test flagged it and its 95% interval covered 0.
    struct Outcome: Sendable {
        var look: Int
        var metric: String
        var flagged: Bool
        var covered: Bool
    }

    struct SeedResult: Sendable {
        var outcomes: [Outcome] = []
        /// Early-look verdicts that decide (ship or stop), in words.
        var earlyDecisions: [String] = []
    }

    static func run(seed: Int, folder: TemporaryFolder) async throws -> SeedResult {
        let db = folder.path + "/seed-\(seed).sqlite"
        let sim = try await Abctl.run(["simulate", "--users", String(users), "--days", "14", "--tail-days", "0", "--seed", String(seed),
                                       "--experiments", folder.path + "/exp", "--db", db, "--until", "2026-12-15T00:00:00Z"])
        #expect(sim.status == 0, "seed \(seed): \(sim.stderr)")
        var result = SeedResult()
        for (i, until) in looks.enumerated() {
            let out = folder.path + "/seed-\(seed)-look-\(i)"
            let r = try await Abctl.run(["report", "--experiments", folder.path + "/exp", "--db", db, "--format", "json", "--until", until, "--out", out],
                                        environment: ["ABCTL_NOW": until])
            #expect(r.status == 0, "seed \(seed) look \(until): \(r.stderr)")
            for k in 0..<experiments {
                let data = try Data(contentsOf: URL(fileURLWithPath: out + "/aa-\(k).json"))
                let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let verdict = (json["decision"] as? [String: Any])?["verdict"] as? String
                if i == 0 && !["keep_running", "inconclusive"].contains(verdict ?? "") { result.earlyDecisions.append("seed \(seed) aa-\(k): \(verdict ?? "none")") }
                let comparisons = json["comparisons"] as? [[String: Any]] ?? []
                for name in metrics {
                    let c = try #require(comparisons.first { $0["variant"] as? String == "b" && $0["metric"] as? String == name }, "seed \(seed) aa-\(k): no \(name)")
                    let p = try #require(c["p_value"] as? Double, "seed \(seed) aa-\(k) \(name): \(c)")
                    let ci = try #require(c["absolute_ci"] as? [Double], "seed \(seed) aa-\(k) \(name): \(c)")
                    result.outcomes.append(Outcome(look: i, metric: name, flagged: p < 0.05, covered: ci.count == 2 && ci[0] <= 0 && 0 <= ci[1]))
                }
            }
        }
        try? FileManager.default.removeItem(atPath: db)
        return result
    }

    @Test func falsePositivesAndCoverageHoldAtEarlyLooks() async throws {
        let folder = try Self.folder()
        let seeds = Self.seeds
        // Two seeds at a time: each is two processes in a row, and the machine has two cores.
        var results: [SeedResult] = []
        try await withThrowingTaskGroup(of: SeedResult.self) { group in
            var next = 1
            for _ in 0..<min(2, seeds) { let s = next; next += 1; group.addTask { try await Self.run(seed: s, folder: folder) } }
            while let r = try await group.next() {
                results.append(r)
                if next <= seeds { let s = next; next += 1; group.addTask { try await Self.run(seed: s, folder: folder) } }
            }
        }
        let early = results.flatMap(\.earlyDecisions)
        #expect(early.isEmpty, "decided on immature data: \(early.prefix(10))")
        let outcomes = results.flatMap(\.outcomes)
        for (i, look) in Self.looks.enumerated() {
            for name in Self.metrics {
                let these = outcomes.filter { $0.look == i && $0.metric == name }
                let n = Double(these.count)
                #expect(these.count == seeds * Self.experiments)
                let falsePositives = Double(these.filter(\.flagged).count) / n, coverage = Double(these.filter(\.covered).count) / n
                print("A/A as of \(look), \(name): \(these.filter(\.flagged).count) of \(these.count) false positives at 5% "
                      + "(\(String(format: "%.1f", 100 * falsePositives))%), 95% intervals covered 0 in \(String(format: "%.1f", 100 * coverage))%")
                guard seeds >= 100 else { continue }
                #expect(abs(falsePositives - 0.05) <= 0.015, "as of \(look), \(name): \(these.filter(\.flagged).count) of \(these.count) flagged at 5%")
                #expect(abs(coverage - 0.95) <= 0.015, "as of \(look), \(name): 95% intervals covered 0 in \(these.filter(\.covered).count) of \(these.count)")
            }
        }
    }
}
