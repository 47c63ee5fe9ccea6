import Foundation
import TestSupport
import Testing

/// `abctl validate --against REF [--strict]` through the binary, in a temporary git
/// repository holding the shipped experiments: what CI runs as `--against origin/main --strict`.
@Suite struct ValidateAgainstTests {
    /// A repository whose HEAD holds the shipped experiments in Experiments/.
    func repository() async throws -> TemporaryFolder {
        let repo = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: repo.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: repo.path + "/Experiments")
        for arguments in [["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "main"]] {
            let r = try await ChildProcess.run("/usr/bin/env", ["git"] + arguments, in: repo.path)
            #expect(r.status == 0, "git \(arguments): \(r.stderr)")
        }
        return repo
    }

    func edit(_ repo: TemporaryFolder, _ name: String, _ from: String, _ to: String) throws {
        let path = repo.path + "/Experiments/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(from))
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func widenedWeightsOfARunningExperimentFailWithTheShareMoved() async throws {
        let repo = try await repository()
        let clean = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--strict"], in: repo.path)
        #expect(clean.status == 0, "\(clean.stdout)")
        try edit(repo, "chorus-discount-framing.json", #""key": "percent-off","#, #""key": "percent-off", "weight": 2,"#)
        let r = try await Abctl.run(["validate", "Experiments", "--against", "HEAD"], in: repo.path)
        #expect(r.status == 1)
        #expect(r.stdout.hasPrefix("Experiments/chorus-discount-framing.json:17:39: error: running experiment 'chorus-discount-framing' changed variants[0].weight: "
                                   + "24.99% of the users it enrolled at HEAD would get another answer\n"), "\(r.stdout)")
        let json = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--format", "json"], in: repo.path)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let d = try #require((root["diagnostics"] as? [[String: Any]])?.first)
        #expect(d["code"] as? String == "reshuffles_running_experiment")
        #expect(d["fields"] as? [String] == ["variants[0].weight"])
        #expect(d["share"] as? Double == 0.2499)
        let github = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--format", "github"], in: repo.path)
        #expect(github.stdout.hasPrefix("::error file=Experiments/chorus-discount-framing.json,line=17,col=39,title=abctl validate%3A reshuffles_running_experiment::"), "\(github.stdout)")
    }

    @Test func aPaywallEditIsAWarningThatStrictFails() async throws {
        let repo = try await repository()
        try edit(repo, "chorus-discount-framing.json", #""trial_days": 3, "discount_framing": "per_week""#, #""trial_days": 7, "discount_framing": "per_week""#)
        let lax = try await Abctl.run(["validate", "Experiments", "--against", "HEAD"], in: repo.path)
        #expect(lax.status == 0, "\(lax.stdout)")
        #expect(lax.stdout.contains("Experiments/chorus-discount-framing.json:33:50: warning: running experiment 'chorus-discount-framing': arm 'per-week' shows another paywall than at HEAD (trial_days)"), "\(lax.stdout)")
        #expect(lax.stdout.contains("ok -- "))
        let strict = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--strict"], in: repo.path)
        #expect(strict.status == 1)
        #expect(!strict.stdout.contains("ok -- ") && strict.stdout.contains("0 errors, 1 warning"), "\(strict.stdout)")
        let json = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--strict", "--format", "json"], in: repo.path)
        #expect(json.status == 1 && json.stdout.contains(#""valid":true,"passed":false"#), "\(json.stdout)")
        let github = try await Abctl.run(["validate", "Experiments", "--against", "HEAD", "--format", "github"], in: repo.path)
        #expect(github.stdout.hasPrefix("::warning file=Experiments/chorus-discount-framing.json,line=33,col=50,title=abctl validate%3A running_arm_changed::"), "\(github.stdout)")
    }

    @Test func aRemovedRunningExperimentFailsAndABadRefIsAUsageError() async throws {
        let repo = try await repository()
        try FileManager.default.removeItem(atPath: repo.path + "/Experiments/chorus-trial-length.json")
        let r = try await Abctl.run(["validate", "Experiments", "--against", "HEAD"], in: repo.path)
        #expect(r.status == 1)
        #expect(r.stdout.contains("Experiments/chorus-trial-length.json:1:1: error: running experiment 'chorus-trial-length' (chorus-trial-length.json at HEAD) was removed"), "\(r.stdout)")
        let bad = try await Abctl.run(["validate", "Experiments", "--against", "origin/nope"], in: repo.path)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("abctl: error: --against: 'origin/nope' is neither a folder nor a git revision"), "\(bad.stderr)")
    }
}

/// The missing-winner hint: with `--db` it reads the report's verdict; without a store it names no arm.
@Suite struct ValidateWinnerHintTests {
    @Test func theHintReadsTheReportsVerdictWhenAStoreIsGiven() async throws {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        let sim = try await Abctl.run(["simulate", "--experiments", ".", "--users", "3000", "--db", "db.sqlite"], in: folder.path)
        #expect(sim.status == 0, "\(sim.stderr)")
        let report = try await Abctl.run(["report", "chorus-trial-length", "--experiments", ".", "--db", "db.sqlite", "--format", "json"], in: folder.path)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let decision = try #require(root["decision"] as? [String: Any])
        let verdict = try #require(decision["verdict"] as? String)
        let path = folder.path + "/chorus-trial-length.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: #""status": "running""#, with: #""status": "shipped""#)
            .replacingOccurrences(of: #""end": null"#, with: #""end": "2026-12-20T00:00:00Z""#).write(toFile: path, atomically: true, encoding: .utf8)

        let plain = try await Abctl.run(["validate", "."], in: folder.path)
        #expect(plain.status == 1)
        #expect(plain.stdout.contains("    hint: add \"winner\": the key of the arm to ship (one of: trial-3d, trial-7d); 'abctl report chorus-trial-length' says which arm its verdict keeps"), "\(plain.stdout)")
        let withStore = try await Abctl.run(["validate", ".", "--db", "db.sqlite"], in: folder.path)
        #expect(withStore.status == 1)
        if verdict == "ship", let winner = decision["winner"] as? String {
            #expect(withStore.stdout.contains("    hint: add \"winner\": \"\(winner)\": the report's verdict ships '\(winner)'"), "\(withStore.stdout)")
        } else {
            #expect(withStore.stdout.contains("    hint: the report's verdict is \(verdict), which ships no arm yet"), "\(withStore.stdout)")
        }
        let noStore = try await Abctl.run(["validate", ".", "--db", "missing.sqlite"], in: folder.path)
        #expect(noStore.status == 3, "\(noStore.stderr)")
    }
}
