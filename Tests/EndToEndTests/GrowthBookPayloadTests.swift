import Foundation
import TestSupport
import Testing

/// `GET /api/features/{clientKey}` and `abctl export --format growthbook`: GrowthBook's
/// own Python SDK, pointed at a live server, picks the variant `/v1/assign` answers.
@Suite(.timeLimit(.minutes(15)))
struct GrowthBookPayloadTests {
    static let keys = GrowthBookFixture.keys
    static func writeExperiments(_ folder: String) throws { try GrowthBookFixture.writeExperiments(folder) }

    static var python: String { Abctl.packageRoot + "/.venv/bin/python" }

    /// Users the SDK and `/v1/assign` are compared on. `make test` runs 30,000, under a third of
    /// the time of 100,000 (which made this test finish minutes after every other); agreement.py
    /// makes one user in 29 a forced one, so the rarest ways in (a forced placement, a paused or
    /// ended experiment's) still come well over the 100 times each must. `ABCTL_GB_USERS=100000`
    /// is the full run.
    static var users: Int { ProcessInfo.processInfo.environment["ABCTL_GB_USERS"].flatMap(Int.init) ?? 30_000 }

    @Test func pythonSDKAgreesWithAssignForEveryUser() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): `make test` creates the venv with growthbook")
        let server = try await ServeProcess.start(environment: ["ABCTL_API_KEYS": Self.keys], experiments: Self.writeExperiments)
        let started = Date()
        let run = try await ChildProcess.run(Self.python, [Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures/growthbook/agreement.py",
                                                           String(server.port), "client-key-1", "assign-key-1", String(Self.users), "18"])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 0, "agreement.py: \(run.stdout.suffix(3000)) \(run.stderr.suffix(3000))")
        let line = try #require(run.stdout.split(separator: "\n").last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(summary["users"] as? Int == Self.users)
        #expect(summary["mismatches"] as? Int == 0)
        // Users with a known attribute of the wrong type (platform 5, country 44, new_user "true"...) get a
        // 400 naming it in both forms (checked by agreement.py), then are compared without those attributes.
        let refused = try #require(summary["refused_wrong_type"] as? Int)
        #expect(refused >= 100 && refused < Self.users / 2, "\(refused) of \(Self.users) users refused")
        #expect(summary["features"] as? [String] == ["chorus-paywall-copy", "gb-everyone", "gb-hash-v1", "gb-shipped", "gb-targeted"])
        #expect(summary["placements"] as? [String] == ["gate", "home"])
        #expect(summary["holdouts"] as? [String] == ["gb-holdout"])
        #expect(summary["placement_evaluations"] as? Int == 2 * Self.users)
        let placementReasons = try #require(summary["placement_reasons"] as? [String: Int])
        for reason in ["assigned", "forced", "holdout", "shipped", "audience", "default", "targeting", "condition", "namespace", "coverage", "paused", "outside_dates"] {
            #expect((placementReasons[reason] ?? 0) >= 100, "placement reason \(reason): \(placementReasons)")
        }
        let arms = try #require(summary["holdout_arms"] as? [String: Int])
        for arm in ["holdout", "general", "None"] { #expect((arms[arm] ?? 0) >= 100, "holdout arm \(arm): \(arms)") }
        // Every way in and out happened many times, so agreement was tested on each.
        let reasons = try #require(summary["assign_reasons"] as? [String: Int])
        for reason in ["assigned", "forced", "targeting", "condition", "namespace", "coverage", "not_running", "outside_dates", "paused", "holdout", "shipped"] {
            #expect((reasons[reason] ?? 0) >= 100, "reason \(reason): \(reasons)")
        }
        let sources = try #require(summary["sdk_sources"] as? [String: Int])
        for source in ["experiment", "force", "defaultValue"] { #expect((sources[source] ?? 0) >= 100, "SDK source \(source): \(sources)") }
        print("growthbook agreement: \(Self.users) users, \(summary["evaluations"] ?? 0) SDK evaluations, 0 mismatches in \(Int(seconds)) s; reasons \(reasons)")
    }

    /// The route itself (ETag, keys, reload) is checked in process (ServerTests/InProcess/GrowthBookPayloadRouteTests).
    @Test func exportPrintsTheServedFeatures() async throws {
        let server = try await ServeProcess.start(environment: ["ABCTL_API_KEYS": Self.keys], experiments: Self.writeExperiments)
        let first = try await server.request("GET", "/api/features/client-key-1")
        #expect(first.status == 200)
        let features = try #require(first.json?["features"] as? [String: Any])
        let export = try await Abctl.run(["export", "--format", "growthbook", "--experiments", server.experimentsPath])
        #expect(export.status == 0, "\(export.stderr)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: exported["features"] as? [String: Any] ?? [:]).isEqual(to: features))
    }

    @Test func exportNeedsTheFormat() async throws {
        let missing = try await Abctl.run(["export"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--format"))
        let help = try await Abctl.run(["export", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("growthbook"))
    }
}
