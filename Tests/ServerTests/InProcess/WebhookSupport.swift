import Foundation
import Server
import Testing
import TestSupport
import Webhooks

/// What the in-process webhook suites share: the vendors' own libraries run as Python scripts
/// (fixtures beside EndToEndTests, which keep the flags' tests), the experiment the revenue lands
/// in, the stored count off /metrics, and the report read per arm.
enum WebhookSupport {
    struct ScriptFailed: Error, CustomStringConvertible { var description: String }

    static func python(_ arguments: [String]) async throws {
        let run = try await ChildProcess.run(Abctl.packageRoot + "/.venv/bin/python", arguments)
        guard run.status == 0 else { throw ScriptFailed(description: "\(arguments.first ?? ""): \(run.stderr.suffix(2000))") }
    }

    static let fixtures = Abctl.packageRoot + "/Tests/EndToEndTests/Fixtures"
    static let unitFixtures = Abctl.packageRoot + "/Tests/WebhooksTests/Fixtures"

    static func storedCount(_ server: InProcessServer) async -> Int {
        let metrics = await server.request("GET", "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(#"abctl_events_total{outcome="stored"}"#) }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// Exposures to `webhook-revenue`, ten days before `now`.
    static func expose(_ server: InProcessServer, _ users: [(String, String)], now: Int) async {
        let exposed = rfc3339(now - 10 * 86_400)
        let body = users.map { user, arm in
            #"{"event_id":"x-\#(user)","type":"exposure","user_id":"\#(user)","experiment":"webhook-revenue","variant":"\#(arm)","ts":"\#(exposed)"}"#
        }.joined(separator: "\n")
        let reply = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: body)
        #expect(reply.status == 200, "\(reply.text)")
    }

    static func rfc3339(_ seconds: Int) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// Writes the `webhook-revenue` experiment into an experiments folder.
    static func addExperiment(_ folder: String) throws {
        try experiment.write(toFile: folder + "/webhook-revenue.json", atomically: true, encoding: .utf8)
    }

    static let experiment = """
        {
          "id": "webhook-revenue",
          "name": "Stripe revenue by arm",
          "hypothesis": "Webhook revenue lands in the right arm.",
          "owner": "growth",
          "status": "running",
          "start": "2020-01-01T00:00:00Z",
          "end": null,
          "hash_version": 2,
          "coverage": 1.0,
          "metrics": { "primary": "paid_conversion", "guardrails": [], "day0_window_hours": 24 },
          "variants": [
            { "key": "trial-3d", "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none",
                                              "copy": { "strategy": "static", "text": "Hear every bird." } } },
            { "key": "trial-7d", "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "none",
                                              "copy": { "strategy": "static", "text": "Hear every bird for a week." } } }
          ]
        }
        """

    // MARK: Stripe

    static let stripeSecrets = ["whsec_current_5fJ2kQ", "whsec_previous_Lm9xTz"]

    /// A server with the Stripe webhook on, as `--stripe-secret` (repeated) turns it on.
    static func stripeServer(secrets: [String] = stripeSecrets, experiments: ((String) throws -> Void)? = nil) throws -> InProcessServer {
        try InProcessServer(options: { $0.stripe = StripeOptions(signature: StripeSignature(secrets: secrets)) }, experiments: experiments)
    }

    static func postStripe(_ server: InProcessServer, body: String, header: String?) async -> APIReply {
        var headers = ["Content-Type": "application/json"]
        if let header { headers["Stripe-Signature"] = header }
        return await server.request("POST", "/v1/webhooks/stripe", headers: headers, body: body)
    }

    struct StripeEventCase: Decodable {
        var name: String
        var body: String
        var header: String
        var status: String
        var type: String?
    }

    // MARK: Google Play

    static let audience = "https://abctl.example.com/v1/webhooks/googleplay"
    static let account = "play-push@chorus-app.iam.gserviceaccount.com"
    static let package = "com.example.chorus"

    struct Push: Decodable {
        var name: String
        var body: String
        var token: String
        var status: String
        var type: String?
    }

    /// A server wired to the fake with the keys tokens.py made in `folder`, as the five
    /// `--google…` flags and `--googleplay-api-url` wire `abctl serve`.
    static func googlePlayServer(_ folder: TemporaryFolder, _ fake: FakeGooglePlay,
                                 experiments: ((String) throws -> Void)? = nil) async throws -> InProcessServer {
        let keyFile = folder.write("service-account.json", fake.serviceAccountKey(privateKeyPEM: try await FakeGooglePlay.makePrivateKeyPEM()))
        let certificates = folder.path + "/jwks.json"
        let verifier = try GooglePushVerifier(certificates: [UInt8](try Data(contentsOf: URL(fileURLWithPath: certificates))),
                                              audience: audience, account: account)
        let key = try ServiceAccountKey(file: [UInt8](try Data(contentsOf: URL(fileURLWithPath: keyFile))))
        let api = GooglePlayAPI(baseURL: try #require(URL(string: fake.apiURL)), packageName: package, key: key, transport: URLSessionTransport())
        return try InProcessServer(options: { $0.googlePlay = GooglePlayOptions(verifier: verifier, certificatesPath: certificates, api: api) },
                                   experiments: experiments)
    }
}

/// The per-arm figures of `GET /v1/experiments/{id}/report`, as the webhook tests check them
/// against their hand counts: one reader of the report's `variants`, so each test states only
/// its arms' counts and revenue.
struct WebhookReport {
    let json: [String: Any]
    let variants: [[String: Any]]

    /// The report of `experiment`; a non-200 answer fails the test.
    static func fetch(_ server: InProcessServer, experiment: String = "webhook-revenue",
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> WebhookReport {
        let reply = await server.request("GET", "/v1/experiments/\(experiment)/report")
        #expect(reply.status == 200, "\(reply.text)", sourceLocation: sourceLocation)
        let json = try #require(reply.json, "\(reply.text)", sourceLocation: sourceLocation)
        return WebhookReport(json: json, variants: try #require(json["variants"] as? [[String: Any]], sourceLocation: sourceLocation))
    }

    /// One metric of one arm (`count`, `denominator`, `sum`, …).
    func metric(_ arm: String, _ name: String) -> [String: Any]? {
        (variants.first { $0["key"] as? String == arm }?["metrics"] as? [String: Any])?[name] as? [String: Any]
    }

    /// Expects `arm`'s count of each named rate and its net revenue (the sum of `revenue_per_user`,
    /// in the report currency, which the JSON gives to the cent), as counted by hand.
    func expect(_ arm: String, counts: [String: Int], revenue: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, count) in counts.sorted(by: { $0.key < $1.key }) {
            #expect(metric(arm, name)?["count"] as? Double == Double(count), "\(arm) \(name): \(String(describing: metric(arm, name)))",
                    sourceLocation: sourceLocation)
        }
        let sum = metric(arm, "revenue_per_user")?["sum"] as? Double
        #expect(sum.map { abs($0 - (revenue * 100).rounded() / 100) < 1e-9 } == true, "\(arm) revenue: \(String(describing: sum)), by hand \(revenue)",
                sourceLocation: sourceLocation)
    }

    /// Expects `arm`'s proceeds (the sum of `proceeds_per_user`, to the cent) to be `proceeds`, computed by hand.
    func expect(_ arm: String, proceeds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let sum = metric(arm, "proceeds_per_user")?["sum"] as? Double
        #expect(sum.map { abs($0 - (proceeds * 100).rounded() / 100) < 1e-9 } == true, "\(arm) proceeds: \(String(describing: sum)), by hand \(proceeds)",
                sourceLocation: sourceLocation)
    }
}
