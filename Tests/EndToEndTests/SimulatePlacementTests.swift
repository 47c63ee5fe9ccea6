import Foundation
import TestSupport
import Testing

/// `abctl simulate` routes a user with a placement as the app does (`/v1/assign`'s
/// placement form): two experiments take everyone, the placement's audience shows one of them,
/// and a simulated user gets exactly that one's arm, one exposure for the placement, and behaves by
/// it. The other experiment, whose treatment would start far more trials, reaches nobody; under
/// the old routing every user was exposed to both and behaved by the first.
@Suite struct SimulatePlacementTests {
    static let paywall = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#

    static let files: [String: String] = [
        "another.json": """
            { "id": "another", "name": "Not at this placement", "status": "running", "start": "2026-11-01T00:00:00Z",
              "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treat", "paywall": \(paywall) } ] }
            """,
        "shown.json": """
            { "id": "shown", "name": "At the placement", "status": "running", "start": "2026-11-01T00:00:00Z",
              "metrics": { "primary": "trial_start_rate" },
              "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treat", "paywall": \(paywall) } ] }
            """,
        "placements.json": """
            { "placements": { "onboarding_end": { "default": \(paywall),
                "audiences": [ { "name": "everyone", "experiment": "shown" } ] } } }
            """,
    ]

    static let truth = #"""
        {"default": {"trial_start": 0.35},
         "experiments": {"shown": {"treat": {"trial_start": 0.40}}, "another": {"treat": {"trial_start": 0.70}}},
         "population": {"placement": {"onboarding_end": 1}}}
        """#

    static func folder() throws -> (TemporaryFolder, experiments: String, truth: String) {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: experiments + "/products.json")
        for (name, text) in files { try text.write(toFile: experiments + "/" + name, atomically: true, encoding: .utf8) }
        return (folder, experiments, folder.write("truth.json", truth))
    }

    static func sqlite(_ db: String, _ sql: String) async throws -> [[String]] {
        let out = try await ChildProcess.run("/usr/bin/sqlite3", ["-separator", "\t", db, sql])
        #expect(out.status == 0, "\(out.stderr)")
        return out.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test func aPlacementExperimentRecoversItsTrueEffectWithOneExposurePerUser() async throws {
        let (folder, experiments, truth) = try Self.folder()
        let db = folder.path + "/placement.sqlite"
        let users = 20_000
        let sim = try await Abctl.run(["simulate", "--users", String(users), "--seed", "43", "--experiments", experiments, "--db", db,
                                       "--truth", truth, "--until", "2026-11-25T00:00:00Z"])
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(sim.stdout.contains("arriving 2026-11-01T00:00:00Z to 2026-11-15T00:00:00Z\n"), "\(sim.stdout)")
        #expect(sim.stdout.contains("events observed until 2026-11-25T00:00:00Z\n"), "\(sim.stdout)")
        let exposed = HoldoutRecoversCombinedEffectTests.exposed(sim.stdout)
        #expect(Array(exposed.keys) == ["shown"], "\(exposed)")
        #expect(exposed["shown"]?.values.reduce(0, +) == users, "\(exposed)")

        // Every user: exactly one exposure, to the placement's experiment.
        let perUser = try await Self.sqlite(db, """
            SELECT count(*), count(DISTINCT user_id), sum(experiment = 'shown') FROM events WHERE variant IS NOT NULL
            """)
        #expect(perUser == [[String(users), String(users), String(users)]])
        #expect(try await Self.sqlite(db, "SELECT count(*) FROM events WHERE experiment = 'another'") == [["0"]])

        // The report recovers the true +5 points on trial starts within its interval.
        let r = try await Abctl.run(["report", "shown", "--db", db, "--experiments", experiments, "--format", "json"],
                                    environment: ["ABCTL_NOW": "2026-11-25T00:00:00Z"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let comparisons = try #require(report["comparisons"] as? [[String: Any]])
        let c = try #require(comparisons.first { $0["metric"] as? String == "trial_start_rate" && $0["variant"] as? String == "treat" })
        let ci = try #require(c["absolute_ci"] as? [Double])
        #expect(ci[0] < 0.05 && 0.05 < ci[1] && ci[0] > 0, "true effect 0.05, interval \(ci)")
        withExtendedLifetime(folder) {}
    }

    /// Without `--until`, nothing is written after the present (ABCTL_NOW here): arrivals run on to
    /// the 15th, observation stops on the 8th, and the summary says both.
    @Test func nothingIsWrittenAfterThePresentUnlessAsked() async throws {
        let (folder, experiments, truth) = try Self.folder()
        let db = folder.path + "/present.sqlite"
        let sim = try await Abctl.run(["simulate", "--users", "2000", "--seed", "5", "--experiments", experiments, "--db", db, "--truth", truth],
                                      environment: ["ABCTL_NOW": "2026-11-08T00:00:00Z"])
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(sim.stdout.contains("arriving 2026-11-01T00:00:00Z to 2026-11-15T00:00:00Z\n"), "\(sim.stdout)")
        #expect(sim.stdout.contains("events observed until 2026-11-08T00:00:00Z ("), "\(sim.stdout)")
        let latest = try await Self.sqlite(db, "SELECT max(ts) FROM events")
        let micros = try #require(Double(latest.first?.first ?? ""))
        #expect(micros / 1e6 < 1_794_096_000, "an event after 2026-11-08: \(latest)")   // 2026-11-08T00:00:00Z

        // A placement the folder does not have is refused, by name.
        let bad = folder.write("bad.json", #"{"population": {"placement": {"nowhere": 1}}}"#)
        let refused = try await Abctl.run(["simulate", "--users", "10", "--experiments", experiments, "--db", db, "--truth", bad])
        #expect(refused.status == 2 && refused.stderr.contains("'nowhere'") && refused.stderr.contains("onboarding_end"), "\(refused.stderr)")
        withExtendedLifetime(folder) {}
    }
}
