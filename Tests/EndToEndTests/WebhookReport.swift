import Foundation
import TestSupport
import Testing

/// The per-arm figures of `GET /v1/experiments/{id}/report`, as the webhook tests check them
/// against their hand counts (Stripe, Google Play, and their currency cases): one reader of the
/// report's `variants`, so each test states only its arms' counts and revenue.
struct WebhookReport {
    let json: [String: Any]
    let variants: [[String: Any]]

    /// The report of `experiment` from a running server; a non-200 answer fails the test.
    static func fetch(_ server: ServeProcess, experiment: String = "webhook-revenue",
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> WebhookReport {
        let reply = try await server.request("GET", "/v1/experiments/\(experiment)/report")
        #expect(reply.status == 200, "\(reply.text)", sourceLocation: sourceLocation)
        let json = try #require(reply.json, "\(reply.text)", sourceLocation: sourceLocation)
        return WebhookReport(json: json, variants: try #require(json["variants"] as? [[String: Any]], sourceLocation: sourceLocation))
    }

    /// One metric of one arm (`count`, `denominator`, `sum`, …).
    func metric(_ arm: String, _ name: String) -> [String: Any]? {
        (variants.first { $0["key"] as? String == arm }?["metrics"] as? [String: Any])?[name] as? [String: Any]
    }

    /// Expects `arm`'s count of each named rate and its net revenue (the sum of `revenue_per_user`,
    /// in the report currency), as counted by hand.
    func expect(_ arm: String, counts: [String: Int], revenue: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, count) in counts.sorted(by: { $0.key < $1.key }) {
            #expect(metric(arm, name)?["count"] as? Double == Double(count), "\(arm) \(name): \(String(describing: metric(arm, name)))",
                    sourceLocation: sourceLocation)
        }
        let sum = metric(arm, "revenue_per_user")?["sum"] as? Double
        // Money in the report JSON is rounded to the cent.
        #expect(sum.map { abs($0 - revenue) < 0.005 + 1e-9 } == true, "\(arm) revenue: \(String(describing: sum)), by hand \(revenue)",
                sourceLocation: sourceLocation)
    }
}
