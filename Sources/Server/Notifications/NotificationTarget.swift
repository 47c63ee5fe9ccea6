import Foundation

/// One `--notify-url`: where notifications are POSTed and in which form.
public struct NotificationTarget: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        /// `{"id", "type", "experiment", "at", "text", "url", "details"}`.
        case json
        /// `{"text"}` with the link, for a chat's incoming webhook.
        case slack
    }

    /// The URL as given: the outbox's key for this target.
    public var given: String
    /// What is POSTed to (a `slack+` prefix taken off).
    public var url: URL
    public var format: Format

    /// Reads a `--notify-url`: an http or https URL with a host, or one written `slack+https://…`
    /// (always the chat form); nil for anything else.
    public init?(_ text: String, format defaultFormat: Format) {
        var address = text, format = defaultFormat
        if text.lowercased().hasPrefix("slack+") {
            address = String(text.dropFirst("slack+".count))
            format = .slack
        }
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              let host = url.host, !host.isEmpty else { return nil }
        self.given = text
        self.url = url
        self.format = format
    }
}
