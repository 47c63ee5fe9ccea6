/// Why a store's webhook cannot be taken: what kind (which fixes the HTTP status the server
/// answers), a stable code, a sentence, and the request field at fault.
public struct WebhookError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not the vendor's shape (400).
        case malformed
        /// The signature, token or sender does not verify (401): nothing is stored.
        case unverified
        /// Verified, but it cannot become an abctl event (422): nothing is stored.
        case unprocessable
        /// A lookup the mapping needs failed (503): the vendor retries.
        case unavailable
    }

    public var kind: Kind
    public var code: String
    public var message: String
    public var field: String?

    public init(_ kind: Kind, code: String, _ message: String, field: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code): \(message)" }

    static func unverified(_ message: String, field: String? = nil) -> WebhookError {
        WebhookError(.unverified, code: "invalid_signature", message, field: field)
    }

    static func invalid(_ field: String, _ message: String) -> WebhookError {
        WebhookError(.unprocessable, code: "invalid_webhook_event", message, field: field)
    }
}
