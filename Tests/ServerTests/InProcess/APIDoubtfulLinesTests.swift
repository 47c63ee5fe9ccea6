import Foundation
import Testing
import TestSupport

/// Doubtful event lines (a key the type does not have, revenue of the wrong sign, a `ts` in the
/// future) through the server's doors: each is refused by `POST /v1/events` naming its field, and
/// nothing of its batch is stored, not even the good line beside it; the good lines in a batch of
/// their own are stored. A webhook whose mapped event is doubtful is acknowledged as ignored with
/// the reason (a retry cannot mend it), counted, and nothing is stored. (The rules themselves:
/// EventsTests' DoubtfulLinesTests; ingest: EndToEnd IngestDoubtfulLinesTests.)
@Suite(.timeLimit(.minutes(3)))
struct APIDoubtfulLinesTests {
    static let now = Int(Date().timeIntervalSince1970)
    static let ts = WebhookSupport.rfc3339(now - 3_600)

    /// (the doubtful keys, the field the refusal names)
    static let doubtful: [(String, String)] = [
        (#""type":"purchased","revenue":-5"#, "revenue"),
        (#""type":"renewed","revenue":-9.99"#, "revenue"),
        (#""type":"refunded","revenue":5"#, "revenue"),
        (#""type":"exposure","experiment":"webhook-revenue","variant":"trial-3d","revenue":50"#, "revenue"),
        (#""type":"trial_started","trail_days":7"#, "trail_days"),
        (#""type":"purchased","revenue":5,"ts":"2099-01-01T00:00:00Z""#, "ts"),
    ]

    @Test func eachDoubtfulLineIsRefusedWithItsBatchAndTheGoodLinesStoreAlone() async throws {
        let server = try InProcessServer(experiments: WebhookSupport.addExperiment)
        for (i, (keys, field)) in Self.doubtful.enumerated() {
            let good = #"{"event_id":"g\#(i)","type":"exposure","user_id":"d\#(i)","ts":"\#(Self.ts)","experiment":"webhook-revenue","variant":"trial-3d"}"#
            let bad = #"{"event_id":"b\#(i)","user_id":"d\#(i)",\#(keys.contains(#""ts":"#) ? "" : #""ts":"\#(Self.ts)","#)\#(keys)}"#
            let before = await WebhookSupport.storedCount(server)
            let refused = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: good + "\n" + bad)
            let first = (refused.json?["rejections"] as? [[String: Any]])?.first
            #expect(refused.status == 422 && first?["field"] as? String == field && first?["line"] as? Int == 2, "\(keys): \(refused.text)")
            #expect(await WebhookSupport.storedCount(server) == before, "\(keys): something of the refused batch was stored")
            let alone = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: good)
            #expect(alone.status == 200 && alone.json?["stored"] as? Int == 1, "\(keys): \(alone.text)")
        }
        // A typo'd key names the nearest known one, as /v1/assign does.
        let typo = await server.request("POST", "/v1/events", body: #"{"event_id":"t","type":"trial_started","user_id":"d","ts":"\#(Self.ts)","trail_days":7}"#)
        #expect(typo.status == 422 && typo.text.contains("did you mean 'trial_days'?"), "\(typo.text)")
    }

    @Test func aWebhookWhoseEventIsDoubtfulIsAcknowledgedAsIgnored() async throws {
        let server = try InProcessServer(experiments: WebhookSupport.addExperiment)
        // A RevenueCat renewal timed in 2099: no retry can mend it, so 200 ignored with the field, nothing stored.
        let body = #"{"api_version":"1.0","event":{"type":"RENEWAL","id":"rc-future","app_user_id":"w1","price":9.99,"currency":"USD","purchased_at_ms":4070908800000}}"#
        let reply = await server.request("POST", "/v1/webhooks/revenuecat", body: body)
        #expect(reply.status == 200 && reply.json?["status"] as? String == "ignored" && reply.json?["reason"] as? String == "doubtful_ts", "\(reply.text)")
        #expect(await WebhookSupport.storedCount(server) == 0)
        #expect(await server.request("GET", "/metrics").text.contains(#"abctl_webhook_events_total{outcome="ignored",type="renewed"} 1"#))
        // The same renewal timed now is stored.
        let now = await server.request("POST", "/v1/webhooks/revenuecat",
                                       body: body.replacingOccurrences(of: "4070908800000", with: String(Self.now * 1000 - 60_000)).replacingOccurrences(of: "rc-future", with: "rc-now"))
        #expect(now.status == 200 && now.json?["status"] as? String == "stored", "\(now.text)")
    }
}
