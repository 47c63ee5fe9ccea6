import Foundation

/// Server-side copy generation (`abctl serve --llm-url URL --llm-model NAME`): the
/// OpenAI-compatible endpoint that writes ai_generated lines for devices with no model of their own.
public struct CopyGenerationOptions: Sendable {
    /// The endpoint's root (`http://127.0.0.1:8080`) or its full `/v1/chat/completions` URL.
    public var url: URL
    public var model: String
    /// Sent as a bearer token when set.
    public var apiKey: String?
    /// The longest an assign call waits for a line before the fallback ships.
    public var deadline: Duration
    /// After a failed generation, how long its brief ships the fallback without asking again.
    public var retryAfter: Duration

    public init(url: URL, model: String, apiKey: String? = nil, deadline: Duration = .milliseconds(300),
                retryAfter: Duration = .seconds(30)) {
        self.url = url
        self.model = model
        self.apiKey = apiKey
        self.deadline = deadline
        self.retryAfter = retryAfter
    }
}
