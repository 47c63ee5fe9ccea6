import Foundation
import TestSupport
import Testing

/// `abctl assign --paywall --attr country=CC` and `abctl export --country CC` price paywalls for
/// the storefront (docs/Reports.md, "Storefronts"), against the hand computation of `StorefrontFixture`;
/// `abctl validate` names a storefront's missing price at its line and column.
@Suite(.timeLimit(.minutes(4)))
struct StorefrontCommandsTests {
    static func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: folder.path)
        folder.write("products.json", StorefrontFixture.productsJSON)
        return folder
    }

    @Test func assignGivesEachCountryItsStorefrontsPaywall() async throws {
        let folder = try Self.folder()
        let users = folder.write("users.txt", (0..<60).map { "u\($0)" }.joined(separator: "\n"))
        for (country, currency) in StorefrontFixture.currencyOf {
            let attrs = ["--attr", "app_version=2.4.0"] + (country.map { ["--attr", "country=\($0)"] } ?? [])
            let run = try await Abctl.run(["assign", "--experiments", folder.path, "--users", users, "--experiment", "chorus-discount-framing", "--paywall"] + attrs)
            #expect(run.status == 0, "\(run.stderr)")
            var checked = 0
            for line in run.stdout.split(separator: "\n") {
                let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let paywall = row["paywall"] as? [String: Any] else {
                    #expect(row["variant"] is NSNull, "a user in the experiment has a paywall: \(line)")
                    continue
                }
                checked += 1
                let framing = try #require(paywall["discount_framing"] as? String)
                #expect(paywall["discount_text"] as? String == StorefrontFixture.claims[currency]?[framing], "\(country ?? "none"): \(line)")
                let plans = try #require(paywall["plans"] as? [[String: Any]])
                #expect(plans.map { $0["price"] as? Double } == StorefrontFixture.prices[currency]!.map(Optional.some))
                #expect(plans.allSatisfy { $0["currency"] as? String == currency })
            }
            #expect(checked >= 10)
            // The placement form carries the same paywall.
            let placed = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "p", "--placement", "feature_gate", "--paywall"] + attrs)
            let row = try #require(try JSONSerialization.jsonObject(with: Data(placed.stdout.utf8)) as? [String: Any])
            #expect((row["paywall"] as? [String: Any])?["discount_text"] as? String == StorefrontFixture.claims[currency]?["percent_off"], "\(placed.stdout)")
        }
        // Without --paywall the lines are as they were.
        let plain = try await Abctl.run(["assign", "--experiments", folder.path, "--user", "u1", "--attr", "country=JP"])
        #expect(!plain.stdout.contains(#""paywall":"#) && plain.stdout.split(separator: "\n").count >= 3)
    }

    @Test func exportPricesTheVariationsForACountry() async throws {
        let folder = try Self.folder()
        let env = ["ABCTL_NOW": "2026-12-01T00:00:00Z"]
        let jp = try await Abctl.run(["export", "--format", "growthbook", "--experiments", folder.path, "--country", "JP"], environment: env)
        #expect(jp.status == 0, "\(jp.stderr)")
        for claim in StorefrontFixture.claims["JPY"]!.values { #expect(jp.stdout.contains(#""discount_text":"\#(claim)""#), "\(claim)") }
        #expect(!jp.stdout.contains(#""currency":"USD""#))
        // No country: the default storefront's, the same bytes as a folder without storefronts.
        let shipped = TemporaryFolder()
        try Abctl.copyShippedExperiments(to: shipped.path)
        let none = try await Abctl.run(["export", "--format", "growthbook", "--experiments", folder.path], environment: env)
        let today = try await Abctl.run(["export", "--format", "growthbook", "--experiments", shipped.path], environment: env)
        #expect(none.status == 0 && none.stdout == today.stdout)
        let unknown = try await Abctl.run(["export", "--format", "growthbook", "--experiments", folder.path, "--country", "BR"], environment: env)
        #expect(unknown.stdout == today.stdout)
    }

    @Test func validateNamesAMissingPriceAndAZeroClaimWhereTheyAre() async throws {
        let folder = try Self.folder()
        folder.write("products.json", StorefrontFixture.productsJSON.replacingOccurrences(of: #""EUR": 69.99, "#, with: ""))
        let run = try await Abctl.run(["validate", folder.path])
        #expect(run.status != 0)
        #expect(run.stdout.contains("products.json:11:31: error: plan 'annual' of offering 'chorus_plus' has no EUR price, which storefronts DE, FR need"), "\(run.stdout)")
        // GBP 5 a month and 60 a year: Save 0% in GB; the per-week arm is still true there.
        folder.write("products.json", StorefrontFixture.productsJSON.replacingOccurrences(of: #""GBP": 8.99"#, with: #""GBP": 5"#)
            .replacingOccurrences(of: #""GBP": 49.99"#, with: #""GBP": 60"#))
        let zero = try await Abctl.run(["validate", folder.path])
        #expect(zero.status != 0)
        let errors = zero.stdout.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count >= 3, "\(zero.stdout)")   // percent-off and months-free arms, and feature_gate's default
        #expect(errors.allSatisfy { $0.contains("in storefront GB (GBP)") }, "\(zero.stdout)")
        #expect(zero.stdout.contains("chorus-discount-framing.json:"))
        #expect(zero.stdout.contains(#""Save 0%""#) && zero.stdout.contains(#""0 months free""#))
    }
}
