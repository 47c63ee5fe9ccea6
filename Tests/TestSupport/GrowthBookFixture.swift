import Foundation

/// The experiments folder the GrowthBook payload tests serve (EndToEndTests/GrowthBookPayloadTests
/// with GrowthBook's Python SDK, ServerTests' GrowthBookPayloadRouteTests in process), and its keys.
public enum GrowthBookFixture {
    public static let keys = "client-key-1:sdk;assign-key-1:assign;admin-key-1:admin"

    /// Experiments that use every part of the translation; the shipped AI-copy experiment is kept
    /// (recipes as variations, platform targeting, forced users), the other two shipped ones dropped.
    /// A global holdout, a shipped experiment, an arm with no paywall, and two placements whose
    /// audiences reach fixed paywalls, no paywall, and experiments live, shipped, paused and ended.
    public static func writeExperiments(_ folder: String) throws {
        // The fixture has its own holdout (gb-holdout); ServeProcess already leaves the shipped one out.
        // The shipped bandit (chorus-voice) too: GrowthBook's payload leaves running bandits out.
        for name in ["chorus-trial-length.json", "chorus-discount-framing.json", "chorus-holdout.json", "chorus-voice.json"]
        where FileManager.default.fileExists(atPath: folder + "/" + name) {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        // Storefronts in countries agreement.py never sends (it sends KR only with a Kelvin sign,
        // which names no storefront): the payload is the default storefront's, which must stay what
        // /v1/assign answers users without a storefront.
        try StorefrontFixture.productsJSON
            .replacingOccurrences(of: #""storefronts": { "JP": "JPY", "DE": "EUR", "FR": "EUR", "GB": "GBP", "KR": "KRW", "CA": "USD" }"#,
                                  with: #""storefronts": { "JP": "JPY", "KR": "KRW" }"#)
            .replacingOccurrences(of: #""EUR": 10.99, "#, with: "").replacingOccurrences(of: #""EUR": 69.99, "#, with: "")
            .replacingOccurrences(of: #", "GBP": 8.99"#, with: "").replacingOccurrences(of: #", "GBP": 49.99"#, with: "")
            .write(toFile: folder + "/products.json", atomically: true, encoding: .utf8)
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
}
