import Events
import Foundation
import Server
import Testing

/// The overview shows the notifications the outbox gave up on, and only those: by experiment, the
/// latest failure first, each target as its scheme, host and port (a chat webhook's path is its
/// secret), every text escaped; nothing at all when none failed.
@Suite(.timeLimit(.minutes(3)))
struct ConsoleNotificationsTests {
    static let t0 = Timestamp(microseconds: 1_796_000_000_000_000)

    static func at(_ seconds: Int64) -> Timestamp { Timestamp(microseconds: t0.microseconds + seconds * 1_000_000) }

    /// Records one notification for `target` and ends its one try with `outcome`.
    static func tried(_ store: any EventStore, id: String, type: String, experiment: String, target: String, outcome: OutboxTryOutcome) throws {
        let n = OutboxNotification(id: id, type: type, experiment: experiment, at: t0, text: "\(experiment): \(type)", details: "{}", recordedAt: t0)
        #expect(try store.recordNotification(n, targets: [target]) == 1)
        let claimed = try #require(try store.claimNotification(claimant: "test", now: at(1), until: at(31)))
        #expect(claimed.id == id)
        try store.finishNotificationTry(id: id, target: target, claimant: "test", outcome: outcome)
    }

    @Test func aFailedNotificationIsOnTheOverviewAndADeliveredOneIsNot() async throws {
        let browser = try await ConsolePagesTests.signedIn()
        let store = browser.server.store
        try Self.tried(store, id: "delivered-one", type: "decision_ready", experiment: "chorus-holdout",
                       target: "https://hooks.example.com/ok", outcome: .delivered(at: Self.at(2)))
        let before = await browser.request("GET", "/")
        #expect(before.status == 200)
        #expect(!before.text.contains("Notifications that failed"))
        #expect(!before.text.contains("decision_ready"))

        try Self.tried(store, id: "failed-one", type: "past_end", experiment: "chorus-voice",
                       target: "slack+https://hooks.slack.com/services/T000/B000/SECRETPATH",
                       outcome: .failed(at: Self.at(3), error: "redirect to https://sso.example.com/login?token=SECRETQUERY not followed"))
        try Self.tried(store, id: "failed-two", type: "no_data", experiment: "chorus-voice",
                       target: "http://127.0.0.1:9/hook", outcome: .failed(at: Self.at(4), error: "answered 404 <b>gone</b>"))
        let page = await browser.request("GET", "/")
        #expect(page.status == 200)
        let text = page.text
        let section = try #require(text.range(of: "<h2>Notifications that failed</h2>"))
        #expect(text.contains("<a href=\"/experiments/chorus-voice\"><code>chorus-voice</code></a>"))
        // The latest failure first.
        let noData = try #require(text.range(of: "<code>no_data</code> to <code>http://127.0.0.1:9</code>", range: section.upperBound..<text.endIndex))
        let pastEnd = try #require(text.range(of: "<code>past_end</code> to <code>https://hooks.slack.com</code>", range: section.upperBound..<text.endIndex))
        #expect(noData.lowerBound < pastEnd.lowerBound)
        #expect(text.contains("given up at \(Self.at(3).rfc3339) after 1 try"))
        #expect(text.contains("redirect to https://sso.example.com not followed"))
        #expect(text.contains("answered 404 &lt;b&gt;gone&lt;/b&gt;"))
        #expect(!text.contains("SECRET"))
        // The delivered one is not there.
        #expect(!text.contains("decision_ready"))
        ConsolePagesTests.expectNoInlineScriptOrStyle(text)
    }
}
