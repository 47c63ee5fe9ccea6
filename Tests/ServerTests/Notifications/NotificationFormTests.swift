import Events
import ExperimentDefinitions
import Foundation
import Server
import Testing
import TestSupport

/// What a notification looks like on the wire: the JSON body's exact keys, the chat
/// form Slack's incoming webhooks accept, the targets `--notify-url` takes, and the signature.
struct NotificationFormTests {
    static let sample = OutboxNotification(
        id: NotificationConditions.id(type: "past_end", experiment: "chorus trial/length", occurrence: "2026-12-01T00:00:00Z"),
        type: "past_end", experiment: "chorus trial/length", at: Timestamp(rfc3339: "2026-12-01T00:00:00Z")!,
        text: "chorus trial/length is still running past its end <2026-12-01> & more", details: #"{"end":"2026-12-01T00:00:00Z"}"#,
        recordedAt: Timestamp(rfc3339: "2026-12-02T08:00:00Z")!)

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theJSONBodyHasExactlyTheContractsKeys() throws {
        let linked = try Self.object(NotificationBody.json(Self.sample, publicURL: URL(string: "https://abctl.example.com/console/")!))
        #expect(Set(linked.keys) == ["id", "type", "experiment", "at", "text", "url", "details"])
        #expect(linked["id"] as? String == Self.sample.id && (linked["id"] as? String)?.count == 32)
        #expect(linked["type"] as? String == "past_end" && linked["experiment"] as? String == "chorus trial/length")
        #expect(linked["at"] as? String == "2026-12-01T00:00:00Z")
        #expect(linked["url"] as? String == "https://abctl.example.com/console/experiments/chorus%20trial%2Flength")
        #expect((linked["details"] as? [String: Any])?["end"] as? String == "2026-12-01T00:00:00Z")
        // Without --public-url there is no url at all.
        let bare = try Self.object(NotificationBody.json(Self.sample, publicURL: nil))
        #expect(Set(bare.keys) == ["id", "type", "experiment", "at", "text", "details"])
    }

    /// Slack's incoming webhooks take `text` (mrkdwn: `&`, `<` and `>` escaped, links as
    /// `<URL|label>`) and optionally `blocks`; nothing else is sent.
    @Test func theChatFormIsTextOnlyWithTheLink() throws {
        let body = try Self.object(NotificationBody.slack(Self.sample, publicURL: URL(string: "https://abctl.example.com")!))
        #expect(Set(body.keys) == ["text"])
        let text = try #require(body["text"] as? String)
        #expect(text == "chorus trial/length is still running past its end &lt;2026-12-01&gt; &amp; more "
                + "<https://abctl.example.com/experiments/chorus%20trial%2Flength|open chorus trial/length>")
        let unlinked = try Self.object(NotificationBody.slack(Self.sample, publicURL: nil))
        #expect(unlinked["text"] as? String == "chorus trial/length is still running past its end &lt;2026-12-01&gt; &amp; more")
    }

    @Test(arguments: [
        ("http://127.0.0.1:9/hook", NotificationTarget.Format.json, "http://127.0.0.1:9/hook"),
        ("https://hooks.example.com/a", .json, "https://hooks.example.com/a"),
        ("slack+https://hooks.slack.com/services/T/B/X", .slack, "https://hooks.slack.com/services/T/B/X"),
    ])
    func aNotifyURLIsHTTPOrASlackURL(_ text: String, _ format: NotificationTarget.Format, _ posted: String) throws {
        let target = try #require(NotificationTarget(text, format: .json))
        #expect(target.format == format && target.url.absoluteString == posted && target.given == text)
        // --notify-format slack makes every target a chat one.
        #expect(NotificationTarget(text, format: .slack)?.format == .slack)
    }

    @Test(arguments: ["ftp://example.com/x", "example.com/hook", "file:///tmp/x", "slack+ftp://x.example.com", "http://", ""])
    func anythingElseIsRefused(_ text: String) {
        #expect(NotificationTarget(text, format: .json) == nil)
    }

    @Test func idsAreStablePerOccurrenceAndDifferBetweenThem() {
        let a = NotificationConditions.id(type: "decision_ready", experiment: "e", occurrence: "ship\u{0}ai")
        #expect(a == NotificationConditions.id(type: "decision_ready", experiment: "e", occurrence: "ship\u{0}ai"))
        #expect(a != NotificationConditions.id(type: "decision_ready", experiment: "e", occurrence: "stop\u{0}ai"))
        #expect(a != NotificationConditions.id(type: "decision_ready", experiment: "f", occurrence: "ship\u{0}ai"))
        #expect(a != NotificationConditions.id(type: "past_end", experiment: "e", occurrence: "ship\u{0}ai"))
    }

    /// The header is checked by Stripe's own library (`stripe.WebhookSignature.verify_header`, the
    /// scheme it is modelled on) and by Python's hmac; a changed body or secret fails both.
    @Test func theSignatureVerifiesAsStripesDoes() async throws {
        let python = Abctl.packageRoot + "/.venv/bin/python"
        #expect(FileManager.default.isExecutableFile(atPath: python), "no \(python): run `make venv`")
        let body = NotificationBody.json(Self.sample, publicURL: nil)
        let now = Int(Date().timeIntervalSince1970)
        let header = NotificationSignature.value(secret: Array("whsec_n0tify".utf8), timestamp: now, body: body)
        #expect(header.hasPrefix("t=\(now),v1=") && header.count == "t=\(now),v1=".count + 64)
        let script = """
            import hashlib, hmac, sys, stripe
            body, header, secret = sys.stdin.buffer.read(), sys.argv[1], sys.argv[2]
            try:
                stripe.WebhookSignature.verify_header(body.decode(), header, secret, tolerance=300)
                lib = "ok"
            except stripe.SignatureVerificationError:
                lib = "bad"
            t = header.split(",")[0][2:]
            mine = hmac.new(secret.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
            print(lib, "ok" if hmac.compare_digest(mine, header.split("v1=")[1]) else "bad")
            """
        let text = String(decoding: body, as: UTF8.self)
        let good = try await ChildProcess.run(python, ["-c", script, header, "whsec_n0tify"], stdin: text, limit: .seconds(60))
        #expect(good.status == 0 && good.stdout == "ok ok\n", "\(good.stderr)")
        let otherSecret = try await ChildProcess.run(python, ["-c", script, header, "whsec_other"], stdin: text, limit: .seconds(60))
        #expect(otherSecret.stdout == "bad bad\n", "\(otherSecret.stderr)")
        let otherBody = try await ChildProcess.run(python, ["-c", script, header, "whsec_n0tify"], stdin: text + " ", limit: .seconds(60))
        #expect(otherBody.stdout == "bad bad\n", "\(otherBody.stderr)")
    }
}
