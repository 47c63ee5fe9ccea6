import ExperimentDefinitions
import Foundation
import TestSupport
import Testing

/// Maturity through the built binary: a 3-day against a 7-day trial with the same true
/// rates (an A/A test), reported at several ages. While fewer than half of an arm's users are
/// older than the longest trial + grace, the verdict is `keep_running` with the reason in words and
/// the `immature` warning; it never ships or stops on figures still moving. `decision.eta` starts
/// unknown (no user old enough), lies in the future while users age, and is met at the end.
@Suite(.timeLimit(.minutes(3))) struct MaturityTests {
    /// Arrivals from the experiment's start (2026-11-02) for 30 days, observed 5 days more.
    static let observedUntil = "2026-12-07T00:00:00Z"

    struct Look {
        var asOf: String
        var verdict: String
        var reasons: [String]
        var health: [String]
        var eta: Date?
        var etaReason: String?
        var asOfDate: Date
    }

    /// Simulates the trial-length experiment (with `primary` and a 20% minimum effect, so that the
    /// sample it needs arrives within the run) and reports it as of each of `ages`.
    static func looks(primary: String, ages: [String]) async throws -> [Look] {
        let folder = TemporaryFolder()
        let exp = folder.path + "/exp"
        try FileManager.default.createDirectory(atPath: exp, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: exp + "/products.json")
        var file = try String(contentsOfFile: Abctl.packageRoot + "/Experiments/chorus-trial-length.json", encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any])
        var edited = object
        var metrics = object["metrics"] as? [String: Any] ?? [:]
        metrics["primary"] = primary
        metrics["minimum_effect"] = 0.2
        edited["metrics"] = metrics
        file = String(decoding: try JSONSerialization.data(withJSONObject: edited, options: [.sortedKeys]), as: UTF8.self)
        folder.write("exp/chorus-trial-length.json", file)
        let db = folder.path + "/t.sqlite"
        let sim = try await Abctl.run(["simulate", "--users", "30000", "--days", "30", "--tail-days", "5", "--seed", "7",
                                       "--experiments", exp, "--db", db, "--until", observedUntil])
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(sim.stdout.contains("observed until"), "\(sim.stdout)")
        var out: [Look] = []
        for until in ages {
            let r = try await Abctl.run(["report", "chorus-trial-length", "--experiments", exp, "--db", db, "--format", "json", "--until", until],
                                        environment: ["ABCTL_NOW": observedUntil])
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let decision = try #require(json["decision"] as? [String: Any])
            let health = (json["health"] as? [[String: Any]] ?? []).filter { $0["level"] as? String != "ok" }.compactMap { $0["code"] as? String }
            out.append(Look(asOf: until, verdict: decision["verdict"] as? String ?? "", reasons: decision["reasons"] as? [String] ?? [],
                            health: health, eta: (decision["eta"] as? String).flatMap(RFC3339.parse),
                            etaReason: decision["eta_reason"] as? String, asOfDate: try #require(RFC3339.parse(until))))
        }
        return out
    }

    @Test(arguments: ["paid_conversion", "revenue_per_user"])
    func neverDecidesOnFiguresStillMoving(primary: String) async throws {
        let looks = try await Self.looks(primary: primary, ages: ["2026-11-05T00:00:00Z", "2026-11-10T00:00:00Z", "2026-11-16T00:00:00Z",
                                                                 "2026-11-20T00:00:00Z", Self.observedUntil])
        // Ten days (the 7-day trial + 3 days' grace) have passed for fewer than half of the users up to
        // the 20th: too early, whatever the to-date figures say.
        for look in looks.prefix(4) {
            #expect(look.verdict == "keep_running", "\(primary) as of \(look.asOf): \(look.verdict) \(look.reasons)")
            // A harm already seen on a guardrail comes first; then why the verdict waits.
            let waits = look.reasons.drop { $0.contains(" made ") && $0.contains(" worse: from ") }
            #expect(waits.first?.hasPrefix("Too early: ") == true, "\(primary) as of \(look.asOf): \(look.reasons)")
            #expect(!look.reasons.joined().contains(" 0% of"), "\(primary) as of \(look.asOf): \(look.reasons)")
            #expect(look.health.contains("immature"), "\(primary) as of \(look.asOf): \(look.health)")
        }
        // When a decision can be expected: unknown before any user is ten days old, then ahead, then met.
        let first = try #require(looks.first)
        #expect(first.eta == nil && first.etaReason != nil, "\(primary): \(String(describing: first.etaReason))")
        let middle = looks[2]
        let ahead = try #require(middle.eta, "\(primary): \(String(describing: middle.etaReason))")
        #expect(ahead > middle.asOfDate, "\(primary): eta \(ahead) as of \(middle.asOf)")
        let last = try #require(looks.last)
        let met = try #require(last.eta, "\(primary): \(String(describing: last.etaReason))")
        #expect(met <= last.asOfDate, "\(primary): eta \(met) as of \(last.asOf)")
        // The verdict reads the mature form and says so.
        #expect(last.reasons.contains { $0.contains("in users' first 10 days") }, "\(last.reasons)")
    }
}
