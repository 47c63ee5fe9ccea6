import Foundation
import TestSupport
import Testing

/// `GET /api/features/{clientKey}` and `abctl export --format growthbook` (SPEC §7): GrowthBook's
/// own Python SDK, pointed at a live server, picks the variant `/v1/assign` answers.
@Suite(.timeLimit(.minutes(15)))
struct GrowthBookPayloadTests {
    static let keys = "client-key-1:sdk;assign-key-1:assign;admin-key-1:admin"

    /// Experiments that use every part of the translation; the shipped AI-copy experiment is kept
    /// (recipes as variations, platform targeting, forced users), the other two shipped ones dropped.
    /// A global holdout, a shipped experiment, an arm with no paywall, and two placements whose
    /// audiences reach fixed paywalls, no paywall, and experiments live, shipped, paused and ended.
    static func writeExperiments(_ folder: String) throws {
        for name in ["chorus-trial-length.json", "chorus-discount-framing.json"] {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        func paywall(_ trial: Int, _ text: String) -> String {
            #"{"offering": "chorus_plus", "trial_days": \#(trial), "discount_framing": "none", "copy": {"strategy": "custom_variable", "template": "{{ custom.userName }}, \#(text)", "defaults": {"userName": "Birder"}}}"#
        }
        func variants(_ keys: [String], weights: [Double]? = nil, none: String? = nil) -> String {
            keys.enumerated().map { i, key in
                let weight = weights.map { #""weight": \#($0[i]), "# } ?? ""
                return #"{"key": "\#(key)", \#(weight)"paywall": \#(key == none ? "null" : paywall(i + 1, key))}"#
            }.joined(separator: ", ")
        }
        let files: [String: String] = [
            "gb-targeted": #"""
            {"id": "gb-targeted", "name": "Every targeting key", "status": "running", "start": "2026-01-01T00:00:00Z", "end": "2099-01-01T00:00:00Z",
             "coverage": 0.8, "namespace": {"id": "gb", "range": [0.0, 0.6]},
             "targeting": {"platform": ["ios", "Android"], "country": ["GB", "us"], "language": ["en", "pt-BR"], "app_version": ">=2.1.0", "new_users_only": true},
             "forced": {"qa-1": "b", "Zoë QA": "c"}, "variants": [\#(variants(["a", "b", "c"], weights: [1, 2, 1]))]}
            """#,
            "gb-hash-v1": #"""
            {"id": "gb-hash-v1", "name": "Hash version 1 with a condition", "status": "running", "hash_version": 1, "seed": "sëed-1",
             "namespace": {"id": "gb", "range": [0.6, 1.0]}, "targeting": {"app_version": "<3"},
             "condition": {"plan": {"$in": ["free", "trial"]}}, "variants": [\#(variants(["x", "y"], weights: [3, 1]))]}
            """#,
            "gb-everyone": #"""
            {"id": "gb-everyone", "name": "No targeting, a third covered", "status": "running", "coverage": 0.35,
             "forced": {"🐦 tester": "off"}, "variants": [\#(variants(["off", "on"], none: "off"))]}
            """#,
            "gb-holdout": #"""
            {"id": "gb-holdout", "name": "Global holdout", "kind": "holdout", "fraction": 0.15, "status": "running", "seed": "hold-seed",
             "targeting": {"platform": ["ios", "android"]}, "forced": {"hold-qa": "holdout", "Zoë QA": "general"}}
            """#,
            "gb-shipped": #"""
            {"id": "gb-shipped", "name": "Shipped", "status": "shipped", "winner": "y", "start": "2020-01-01T00:00:00Z", "end": "2021-01-01T00:00:00Z",
             "coverage": 0.2, "namespace": {"id": "gb", "range": [0.0, 0.1]}, "targeting": {"country": ["GB"]},
             "forced": {"ship-qa": "x"}, "variants": [\#(variants(["x", "y"]))]}
            """#,
            "placements": #"""
            {"placements": {
              "home": {"default": \#(paywall(9, "home")), "audiences": [
                {"name": "gated", "condition": {"plan": "paid"}, "paywall": null},
                {"name": "uk", "condition": {"country": {"$in": ["GB", "gb"]}}, "experiment": "gb-shipped"},
                {"name": "targeted", "condition": {"new_user": {"$type": "boolean", "$eq": true}}, "experiment": "gb-targeted"},
                {"name": "paused", "condition": {"language": "fr"}, "experiment": "gb-paused"},
                {"name": "ended", "condition": {"language": "pt"}, "experiment": "gb-ended"},
                {"name": "fixed", "condition": {"plan": "trial"}, "paywall": \#(paywall(4, "fixed"))},
                {"name": "rest", "experiment": "gb-everyone"}]},
              "gate": {"default": null, "audiences": [
                {"name": "v1", "condition": {"plan": {"$in": ["free", "paid"]}}, "experiment": "gb-hash-v1"},
                {"name": "copy", "condition": {"sessions": {"$type": "number", "$gte": 5}}, "experiment": "chorus-paywall-copy"}]}}}
            """#,
            "gb-draft": #"""
            {"id": "gb-draft", "name": "Draft", "status": "draft", "forced": {"qa-1": "b"}, "variants": [\#(variants(["a", "b"]))]}
            """#,
            "gb-paused": #"""
            {"id": "gb-paused", "name": "Paused", "status": "paused", "variants": [\#(variants(["a", "b"]))]}
            """#,
            "gb-future": #"""
            {"id": "gb-future", "name": "Starts later", "status": "running", "start": "2099-01-01T00:00:00Z", "variants": [\#(variants(["a", "b"]))]}
            """#,
            "gb-ended": #"""
            {"id": "gb-ended", "name": "Ended", "status": "running", "start": "2020-01-01T00:00:00Z", "end": "2021-01-01T00:00:00Z", "variants": [\#(variants(["a", "b"]))]}
            """#,
        ]
        for (id, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(id).json"))
        }
    }

    static var python: String { CLIRunner.packageRoot + "/.venv/bin/python" }

    @Test func pythonSDKAgreesWithAssignForEveryUser() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): `make test` creates the venv with growthbook")
        let server = try LiveServer(environment: ["ABCTL_API_KEYS": Self.keys], experiments: Self.writeExperiments)
        let started = Date()
        let run = try await Self.runWithoutBlocking(Self.python, [CLIRunner.packageRoot + "/Tests/EndToEndTests/Fixtures/growthbook/agreement.py",
                                                                  String(server.port), "client-key-1", "assign-key-1", "100000", "18"])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 0, "agreement.py: \(run.stdout.suffix(3000)) \(run.stderr.suffix(3000))")
        let line = try #require(run.stdout.split(separator: "\n").last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(summary["users"] as? Int == 100_000)
        #expect(summary["mismatches"] as? Int == 0)
        #expect(summary["features"] as? [String] == ["chorus-paywall-copy", "gb-everyone", "gb-hash-v1", "gb-shipped", "gb-targeted"])
        #expect(summary["placements"] as? [String] == ["gate", "home"])
        #expect(summary["holdouts"] as? [String] == ["gb-holdout"])
        #expect(summary["placement_evaluations"] as? Int == 200_000)
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
        print("growthbook agreement: 100000 users, \(summary["evaluations"] ?? 0) SDK evaluations, 0 mismatches in \(Int(seconds)) s; reasons \(reasons)")
    }

    /// Runs a program for its output without holding a thread of the test pool for its two
    /// minutes (a blocking read there would stall the other suites' tests on a 2-core machine).
    static func runWithoutBlocking(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = TemporaryFolder()
        let outPath = folder.write("stdout", ""), errPath = folder.write("stderr", "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        let launchError: (any Error)? = await withCheckedContinuation { done in
            process.terminationHandler = { _ in done.resume(returning: nil) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                done.resume(returning: error)
            }
        }
        if let launchError { throw launchError }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (process.terminationStatus, read(outPath), read(errPath))
    }

    @Test func etagKeysAndReload() throws {
        let server = try LiveServer(environment: ["ABCTL_API_KEYS": Self.keys], experiments: Self.writeExperiments)
        let first = try server.request("GET", "/api/features/client-key-1")
        #expect(first.status == 200)
        let etag = try #require(first.headers["etag"])
        let payload = try #require(first.json)
        #expect(payload["status"] as? Int == 200)
        #expect(payload["dateUpdated"] is String)
        let features = try #require(payload["features"] as? [String: Any])
        #expect(features.keys.sorted() == ["chorus-paywall-copy", "gb-everyone", "gb-hash-v1", "gb-holdout", "gb-shipped", "gb-targeted", "placement:gate", "placement:home"])

        let again = try server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["etag"] == etag)
        #expect(try server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": "\"other\", W/\(etag)"]).status == 304)
        #expect(try server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": "\"other\""]).status == 200)

        // Only sdk keys are client keys, and they open nothing else.
        #expect(try server.request("GET", "/api/features/assign-key-1").status == 401)
        #expect(try server.request("GET", "/api/features/admin-key-1").status == 401)
        #expect(try server.request("GET", "/api/features/nope").status == 401)
        let assign = try server.request("POST", "/v1/assign", headers: ["Authorization": "Bearer client-key-1"], body: #"{"user_id":"u1"}"#)
        #expect(assign.status == 403)
        #expect(try server.request("GET", "/v1/experiments", headers: ["Authorization": "Bearer client-key-1"]).status == 403)

        // The CLI prints the same features.
        let export = try CLIRunner.run(["export", "--format", "growthbook", "--experiments", server.experimentsPath])
        #expect(export.status == 0, "\(export.stderr)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: exported["features"] as? [String: Any] ?? [:]).isEqual(to: features))

        // A reload rebuilds it: a new experiment appears and the tag changes.
        try FileManager.default.removeItem(atPath: server.experimentsPath + "/gb-everyone.json")
        let placements = server.experimentsPath + "/placements.json"
        let text = try String(contentsOfFile: placements, encoding: .utf8).replacingOccurrences(of: #",\#n    {"name": "rest", "experiment": "gb-everyone"}"#, with: "")
        try Data(text.utf8).write(to: URL(fileURLWithPath: placements))
        server.signal(SIGHUP)
        #expect(try server.eventually { try server.request("GET", "/api/features/client-key-1").headers["etag"] != etag })
        let reloaded = try server.request("GET", "/api/features/client-key-1", headers: ["If-None-Match": etag])
        #expect(reloaded.status == 200)
        #expect((reloaded.json?["features"] as? [String: Any])?.keys.sorted() == ["chorus-paywall-copy", "gb-hash-v1", "gb-holdout", "gb-shipped", "gb-targeted", "placement:gate", "placement:home"])

        let metrics = try server.request("GET", "/metrics").text
        #expect(metrics.contains(#"abctl_http_requests_total{route="/api/features/{clientKey}",method="GET",status="304"}"#))
    }

    @Test func exportNeedsTheFormat() throws {
        let missing = try CLIRunner.run(["export"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--format"))
        let help = try CLIRunner.run(["export", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("growthbook"))
    }
}
