import Foundation
import TestSupport
import Testing

/// `abctl serve`'s Google Play flags go together. The webhook itself (push tokens judged by
/// google-auth, notifications mapped, stored and reported) is checked in process:
/// ServerTests/InProcess/APIGooglePlayWebhookTests.
@Suite(.timeLimit(.minutes(3)))
struct GooglePlayWebhookTests {
    @Test func allOrNone() async throws {
        let half = try await Abctl.run(["serve", "--port", "0", "--googleplay-package", "com.example.chorus"])
        #expect(half.status == 2)
        #expect(half.stderr.contains("--google-certs"))
    }
}
