import Foundation
import TestSupport
import Testing

@Suite struct PowerCommandTests {
    /// 10% → 12% at alpha 0.05 and 80% power: 3841 per arm (statsmodels' samplesize_proportions_2indep_onetail agrees).
    @Test func textbookSampleSize() async throws {
        let r = try await Abctl.run(["power", "--baseline", "0.1", "--mde", "0.2", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(root["users_per_variant"] as? Int == 3841)
        #expect(root["total_users"] as? Int == 7682)
    }

    @Test func moreVariantsNeedMoreUsersEach() async throws {
        func usersPerVariant(_ extra: [String]) async throws -> Int? {
            let r = try await Abctl.run(["power", "--baseline", "0.1", "--mde", "0.2", "--format", "json"] + extra)
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["users_per_variant"] as? Int
        }
        let two = try #require(try await usersPerVariant([])), three = try #require(try await usersPerVariant(["--variants", "3"]))
        #expect(three > two, "Bonferroni: each of two comparisons runs at alpha 0.025")
        let text = try await Abctl.run(["power", "--baseline", "0.1", "--mde", "0.2"])
        #expect(text.stdout.contains("3841 users per variant, 7682 in all (2 variants)"), "\(text.stdout)")
    }

    @Test func badInputIsAUsageError() async throws {
        let r = try await Abctl.run(["power", "--baseline", "1.5", "--mde", "0.1"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("abctl: error: "))
        #expect(try await Abctl.run(["power", "--mde", "0.1"]).status == 2)
    }
}
