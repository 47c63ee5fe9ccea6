import Foundation
import TestSupport
import Testing

/// `abctl serve`'s Stripe flags. The webhook itself (signatures judged by Stripe's own library,
/// events mapped, stored and reported) is checked in process: ServerTests/InProcess/APIStripeWebhookTests.
@Suite(.timeLimit(.minutes(3)))
struct StripeWebhookTests {
    @Test func theToleranceNeedsASecret() async throws {
        let orphan = try await Abctl.run(["serve", "--port", "0", "--stripe-tolerance-s", "60"])
        #expect(orphan.status == 2)
        #expect(orphan.stderr.contains("--stripe-secret"))
    }
}

