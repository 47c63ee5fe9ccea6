import Webhooks

/// `--stripe-secret` (repeatable, or `ABCTL_STRIPE_SECRETS`) and `--stripe-tolerance-s`:
/// without a secret `POST /v1/webhooks/stripe` answers 404.
public struct StripeOptions: Sendable {
    public let signature: StripeSignature

    public init(signature: StripeSignature) {
        self.signature = signature
    }
}
