import Foundation
import TestSupport
import Testing

@Suite struct CopyCheckCommandTests {
    let base = ["copy", "check", "--experiment", "chorus-paywall-copy", "--variant", "ai"]

    @Test func aGoodLinePasses() async throws {
        let r = try await Abctl.run(base + ["--text", "\"Chorus names every song on your dawn walk.\""])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout == "accepted: Chorus names every song on your dawn walk.\n")
    }

    @Test func aBadLineIsRejectedWithEachRule() async throws {
        let r = try await Abctl.run(base + ["--text", "Ada, try it free!", "--user-name", "Ada", "--format", "json"])
        #expect(r.status == 1)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(root["accepted"] as? Bool == false)
        let rules = (root["violations"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(Set(rules) == ["forbid", "forbid_words", "mention_once", "forbid_user_name"])
    }

    @Test func aVariantWithoutAGuardIsAUsageError() async throws {
        let r = try await Abctl.run(["copy", "check", "--experiment", "chorus-paywall-copy", "--variant", "control", "--text", "x"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("uses static copy, which has no guard"))
    }
}
