import Foundation
import Server
import Testing
import TestSupport

/// `/v1/assign` priced for the request's storefront (its `country`): both forms give the
/// country's plans and discount text, against the hand computation of `StorefrontFixture`; no
/// country (or one without a storefront) gives the default storefront, byte for byte today's answer.
@Suite(.timeLimit(.minutes(4)))
struct APIStorefrontTests {
    static func withStorefronts(_ folder: String) throws {
        try StorefrontFixture.productsJSON.write(toFile: folder + "/products.json", atomically: true, encoding: .utf8)
    }

    static func body(_ user: String, country: String?, platform: String = "ios", placement: String? = nil) -> String {
        let c = country.map { #","country":"\#($0)""# } ?? ""
        let which = placement.map { #""placement":"\#($0)""# } ?? #""experiments":["chorus-discount-framing"]"#
        return #"{"user_id":"\#(user)","attributes":{"app_version":"2.4.0","platform":"\#(platform)"\#(c)},\#(which)}"#
    }

    func check(_ paywall: [String: Any], currency: String, framing: String, _ what: String) {
        #expect(paywall["discount_framing"] as? String == framing, "\(what)")
        #expect(paywall["discount_text"] as? String == StorefrontFixture.claims[currency]?[framing], "\(what): \(paywall)")
        let plans = paywall["plans"] as? [[String: Any]] ?? []
        #expect(plans.map { $0["key"] as? String } == ["monthly", "annual"], "\(what)")
        #expect(plans.map { $0["price"] as? Double } == StorefrontFixture.prices[currency]!.map(Optional.some), "\(what): \(plans)")
        #expect(plans.allSatisfy { $0["currency"] as? String == currency }, "\(what)")
    }

    @Test func eachCountryGetsItsStorefrontsPlansAndClaims() async throws {
        let server = try InProcessServer(experiments: Self.withStorefronts)
        var seen: Set<String> = []
        for (country, currency) in StorefrontFixture.currencyOf {
            var checked = 0
            for n in 0..<90 {
                let reply = await server.request("POST", "/v1/assign", body: Self.body("u\(n)", country: country))
                #expect(reply.status == 200)
                let answer = try #require((reply.json?["assignments"] as? [[String: Any]])?.first)
                // The experiment's namespace takes 30% of users; the others get no paywall here.
                guard let paywall = answer["paywall"] as? [String: Any] else { continue }
                checked += 1
                let framing = try #require(paywall["discount_framing"] as? String)
                seen.insert(framing)
                check(paywall, currency: currency, framing: framing, "\(country ?? "none") u\(n)")
            }
            #expect(checked >= 10, "\(checked)")
            // The placement form: feature_gate's default (percent_off) for a platform no audience names (iOS
            // has the bandit chorus-voice there), the experiment for Android.
            let placed = try #require(await server.request("POST", "/v1/assign", body: Self.body("p", country: country, platform: "macos", placement: "feature_gate")).json)
            check(try #require(placed["paywall"] as? [String: Any]), currency: currency, framing: "percent_off", "placement \(country ?? "none")")
            let android = try #require(await server.request("POST", "/v1/assign", body: Self.body("p", country: country, platform: "android", placement: "feature_gate")).json)
            let paywall = try #require(android["paywall"] as? [String: Any])
            check(paywall, currency: currency, framing: try #require(paywall["discount_framing"] as? String), "android \(country ?? "none")")
        }
        #expect(seen == ["percent_off", "months_free", "per_week"])
        // GET /v1/experiments lists the storefronts and the plans' storefront prices.
        let listing = try #require(await server.request("GET", "/v1/experiments").json?["products"] as? [String: Any])
        #expect(listing["storefronts"] as? [String: String] == ["JP": "JPY", "DE": "EUR", "FR": "EUR", "GB": "GBP", "KR": "KRW", "CA": "USD"])
        let annual = ((listing["offerings"] as? [String: Any])?["chorus_plus"] as? [String: Any]).flatMap { ($0["plans"] as? [String: Any])?["annual"] as? [String: Any] }
        #expect(annual?["prices"] as? [String: Double] == ["EUR": 69.99, "JPY": 9800, "GBP": 49.99, "KRW": 99000])
    }

    /// A user with no country, or a country with no storefront, gets exactly what a folder without
    /// storefronts answers; so does the GrowthBook payload (the default storefront's paywalls).
    @Test func noCountryIsTodaysAnswerByteForByte() async throws {
        let today = try InProcessServer()
        let priced = try InProcessServer(experiments: Self.withStorefronts)
        for n in 0..<40 {
            for country in [nil, "US", "BR"] as [String?] {
                for placement in [nil, "feature_gate", "onboarding_end"] as [String?] {
                    let body = Self.body("user-\(n)", country: country, platform: n % 2 == 0 ? "ios" : "android", placement: placement)
                    let a = await today.request("POST", "/v1/assign", body: body), b = await priced.request("POST", "/v1/assign", body: body)
                    #expect(a.status == 200 && a.text == b.text, "\(body)")
                }
            }
            let all = #"{"user_id":"all-\#(n)","attributes":{"app_version":"2.4.0"}}"#
            #expect(await today.request("POST", "/v1/assign", body: all).text == (await priced.request("POST", "/v1/assign", body: all)).text)
        }
        // And a country with a storefront does differ.
        let jp = Self.body("user-1", country: "JP", placement: "feature_gate")
        #expect(await today.request("POST", "/v1/assign", body: jp).text != (await priced.request("POST", "/v1/assign", body: jp)).text)

        // The GrowthBook payload's features are the same with storefronts as without.
        func features(_ experiments: @escaping (String) throws -> Void) async throws -> Data {
            let server = try InProcessServer(options: { $0.keys = try APIKeys.parse(environment: GrowthBookFixture.keys) }, experiments: experiments)
            let payload = try #require(await server.request("GET", "/api/features/client-key-1").json)
            let features = try #require(payload["features"] as? [String: Any])
            #expect(!features.isEmpty && features.keys.contains { $0.hasPrefix("placement:") }, "\(features.keys)")
            return try JSONSerialization.data(withJSONObject: features, options: [.sortedKeys])
        }
        #expect(try await features { _ in } == (try await features(Self.withStorefronts)))
    }
}
