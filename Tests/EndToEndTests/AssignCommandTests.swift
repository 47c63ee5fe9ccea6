import Foundation
import TestSupport
import Testing

/// `abctl assign` run as a process: stable answers across processes, GrowthBook-compatible
/// buckets (expected values from the growthbook Python package), streaming input, errors.
@Suite struct AssignCommandTests {
    /// A folder with one experiment: seed `e2e-seed`, weights 1:2:1, targeting on platform, a QA override.
    static func folder() -> TemporaryFolder {
        let folder = TemporaryFolder()
        folder.write("products.json", """
        { "currency": "USD", "offerings": { "chorus_plus": { "plans": {
          "monthly": { "product_id": "m", "price": 9.99, "period": "P1M" },
          "annual": { "product_id": "a", "price": 59.99, "period": "P1Y" } } } } }
        """)
        func variant(_ key: String, _ weight: Int) -> String {
            """
            { "key": "\(key)", "weight": \(weight), "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none",
              "copy": { "strategy": "static", "text": "Hear every bird." } } }
            """
        }
        folder.write("e2e.json", """
        { "$schema": "schema.json", "id": "e2e", "name": "End to end", "status": "running", "seed": "e2e-seed",
          "hash_version": 2, "targeting": { "platform": ["ios"] }, "forced": { "qa-device-1": "c" },
          "variants": [\(variant("a", 1)), \(variant("b", 2)), \(variant("c", 1))] }
        """)
        return folder
    }

    static func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func matchesGrowthBookAndIsStableAcrossProcesses() async throws {
        let folder = Self.folder()
        // Expected (bucket, variant) from growthbook 4.0.0: gbhash("e2e-seed", id, 2), ranges for weights 1:2:1.
        let expected: [(String, Double, String)] = [
            ("user-1", 0.1912, "a"), ("user-42", 0.8873, "c"), ("😀", 0.7037, "b"), ("café", 0.2099, "a"), ("用户123", 0.5784, "b"),
        ]
        let ids = expected.map(\.0) + (0..<2000).map { "stable-\($0)-é" }
        let input = ids.joined(separator: "\n") + "\n"
        let args = ["assign", "--experiments", folder.path, "--users", "-", "--attr", "platform=ios"]
        let first = try await Abctl.run(args, stdin: input)
        let second = try await Abctl.run(args, stdin: input)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        let rows = try Self.lines(first.stdout)
        #expect(rows.count == ids.count)
        for (row, (id, bucket, variant)) in zip(rows, expected) {
            #expect(row["user_id"] as? String == id)
            #expect(row["experiment"] as? String == "e2e")
            #expect(row["bucket"] as? Double == bucket)
            #expect(row["variant"] as? String == variant)
            #expect(row["in_experiment"] as? Bool == true)
            #expect(row["reason"] as? String == "assigned")
        }
        // One id on the command line gives the same line as in the stream.
        let single = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "😀", "--attr", "platform=ios"])
        #expect(single.stdout == first.stdout.split(separator: "\n")[2] + "\n")
    }

    /// `--attr app_version=2.3` stays the text "2.3" (not the number 2.3, which targeting refuses and
    /// which would make `2.10` equal `2.1`), and a two-part version has a .0 third part.
    @Test(arguments: [
        ("2.3", ">=2.3.0", true), ("2.3", "==2.3.0", true), ("2.3", "<2.3.0", false), ("2.3", ">2.3.0", false),
        ("2.10", ">2.9", true), ("2.10", "==2.1.0", false), ("2", "==2.0.0", true), ("2.3.1", ">2.3", true),
    ])
    func appVersionIsAlwaysAVersionString(version: String, constraint: String, targeted: Bool) async throws {
        let folder = Self.folder()
        let text = try String(contentsOfFile: folder.path + "/e2e.json", encoding: .utf8)
        folder.write("e2e.json", text.replacingOccurrences(of: "\"targeting\": { \"platform\": [\"ios\"] }", with: "\"targeting\": { \"app_version\": \"\(constraint)\" }"))
        let r = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "user-1", "--attr", "app_version=\(version)"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(try Self.lines(r.stdout).first)
        #expect(row["reason"] as? String == (targeted ? "assigned" : "targeting"), "\(version) against \(constraint): \(r.stdout)")
    }

    @Test func outOfTargetingAndForced() async throws {
        let folder = Self.folder()
        let r = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "user-1", "--attr", "platform=android"])
        let row = try #require(try Self.lines(r.stdout).first)
        #expect(row["variant"] is NSNull)
        #expect(row["in_experiment"] as? Bool == false)
        #expect(row["reason"] as? String == "targeting")
        #expect(row["targeting_attribute"] as? String == "platform")
        #expect(row["bucket"] as? Double == 0.1912)
        // A missing attribute is named too; the text form adds it as a sixth column.
        let missing = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "user-1", "--format", "text"])
        #expect(missing.stdout == "user-1 e2e - targeting 0.1912 platform\n")
        let qa = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "qa-device-1", "--format", "text"])
        #expect(qa.stdout == "qa-device-1 e2e c forced 0.1979\n")
    }

    /// `/v1/assign` names the attribute a `targeting` answer failed on, in both forms, and only there.
    @Test func serveNamesTheTargetingAttributeThatFailed() async throws {
        let server = try await ServeProcess.start()
        let reply = try await server.request("POST", "/v1/assign", body: #"{"user_id":"u1","attributes":{"platform":"web"}}"#)
        let answers = Dictionary(uniqueKeysWithValues: ((reply.json?["assignments"] as? [[String: Any]]) ?? []).map { ($0["experiment"] as? String ?? "", $0) })
        #expect(answers["chorus-paywall-copy"]?["reason"] as? String == "targeting")
        #expect(answers["chorus-paywall-copy"]?["targeting_attribute"] as? String == "platform")
        #expect(answers["chorus-discount-framing"]?["reason"] as? String == "targeting")
        #expect(answers["chorus-discount-framing"]?["targeting_attribute"] as? String == "app_version", "missing, so named")
        #expect(answers["chorus-trial-length"]?["reason"] as? String != "targeting")
        #expect(answers["chorus-trial-length"]?["targeting_attribute"] == nil)
        #expect(reply.text.contains(#""reason":"targeting","targeting_attribute":"platform","paywall":null"#))
        let taken = try await server.request("POST", "/v1/assign", body: #"{"user_id":"u1","attributes":{"platform":"ios","app_version":"3.0"}}"#)
        #expect(!taken.text.contains("targeting_attribute"), "\(taken.text)")

        // The placement form: everyone's audience shows the platform-targeted experiment.
        let placements = try await ServeProcess.start { folder in
            let path = folder + "/placements.json"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: #"{ "name": "everyone", "experiment": "chorus-trial-length" }"#,
                                          with: #"{ "name": "everyone", "experiment": "chorus-paywall-copy" }"#)
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        let placed = try #require(try await placements.request("POST", "/v1/assign",
            body: #"{"user_id":"u1","attributes":{"platform":"web"},"placement":"onboarding_end"}"#).json)
        #expect(placed["audience"] as? String == "everyone")
        #expect(placed["reason"] as? String == "targeting")
        #expect(placed["targeting_attribute"] as? String == "platform")
    }

    @Test func usersFromAFileSkipBlankLinesAndCRLF() async throws {
        let folder = Self.folder()
        let file = folder.write("ids.txt", "user-1\r\n\r\nuser-42\n\n")
        let r = try await Abctl.run(["assign", "--experiments", folder.path, "--users", file, "--attr", "platform=ios", "--format", "text"])
        #expect(r.stdout == "user-1 e2e a assigned 0.1912\nuser-42 e2e c assigned 0.8873\n")
    }

    @Test func usageErrors() async throws {
        let folder = Self.folder()
        for args in [
            ["assign", "--experiments", folder.path],
            ["assign", "--experiments", folder.path, "--user", "u", "--users", "-"],
            ["assign", "--experiments", folder.path, "--user", "u", "--attr", "platform"],
            ["assign", "--experiments", folder.path, "--user", "u", "--experiment", "nope"],
            ["assign", "--experiments", folder.path, "--user", "u", "--format", "xml"],
        ] {
            let r = try await Abctl.run(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("abctl: error: "))
        }
        let missing = try await Abctl.run(["assign", "--experiments", folder.path + "/nowhere", "--user", "u"])
        #expect(missing.status != 0 && missing.stdout.isEmpty)
    }

    /// A million ids stream through: run only with ABCTL_BIG_TESTS=1, as it takes seconds
    /// with a release build and longer with a debug one.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ABCTL_BIG_TESTS"] == "1"))
    func aMillionIds() async throws {
        let folder = Self.folder()
        // From a file, as a user with a million ids would give them.
        let file = folder.write("ids.txt", (0..<1_000_000).map { "user-\($0)" }.joined(separator: "\n"))
        let started = Date()
        let r = try await Abctl.run(["assign", "--experiments", folder.path, "--users", file, "--attr", "platform=ios"])
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(r.status == 0)
        #expect(r.stdout.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } == 1_000_000)
    }
}
