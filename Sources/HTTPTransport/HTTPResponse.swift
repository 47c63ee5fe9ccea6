/// A complete HTTP response: status, content type, extra headers and body bytes.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String = "application/json", headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A JSON response from text that is already JSON.
    public static func json(text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: Array(text.utf8))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }
}

/// What a handler gives back: a response now, or later (the connection is suspended meanwhile,
/// so no thread waits, e.g. while the event store commits).
public enum HandlerOutcome: Sendable {
    case response(HTTPResponse)
    /// Starts the work; the work calls the given closure exactly once with the response.
    case deferred(@Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
}

/// A handler's answer and the route pattern that produced it (for metrics and logs).
public struct HandlerResult: Sendable {
    public var route: String
    public var outcome: HandlerOutcome

    public init(route: String, outcome: HandlerOutcome) {
        self.route = route
        self.outcome = outcome
    }
}

/// Receives every complete request from the daemon.
public protocol HTTPHandler: Sendable {
    /// The request headers the handler reads; only these are copied out of each request.
    var requestHeaderNames: [String] { get }
    /// Those of `requestHeaderNames` whose every line is copied, not only the first.
    var everyLineHeaderNames: [String] { get }
    func handle(_ request: HTTPRequest) -> HandlerResult
    /// The response for a body over the size limit (the daemon never reads such a body whole).
    func payloadTooLarge(limit: Int) -> HTTPResponse
    /// The response for a request line and headers over the size limit.
    func headersTooLarge(limit: Int) -> HTTPResponse
    /// The response for a request whose head or body did not arrive in time (sent, then the connection closes).
    func requestTimeout() -> HTTPResponse
    /// The route pattern a request will be counted under (known before its body is read).
    func route(method: String, path: String) -> String
    /// Called when a response is queued: the request counts as answered from here (metrics).
    func answered(route: String, method: String, status: Int, seconds: Double)
    /// Called once per request after the response was sent (or the connection dropped): logs.
    func completed(_ request: RequestSummary)
}

/// What the daemon knows about a finished request, for logs and metrics.
public struct RequestSummary: Sendable {
    public var method: String
    public var path: String
    /// The route pattern the router matched (low cardinality, for metrics).
    public var route: String
    /// 0 when no response was queued (the client went away, or the connection broke).
    public var status: Int
    public var seconds: Double
    public var bytesIn: Int
    public var bytesOut: Int
    /// nil when the response went out; otherwise why the request ended (e.g. `timeout`, `client_abort`).
    public var termination: String?

    public init(method: String, path: String, route: String, status: Int, seconds: Double, bytesIn: Int, bytesOut: Int,
                termination: String? = nil) {
        self.method = method
        self.path = path
        self.route = route
        self.status = status
        self.seconds = seconds
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.termination = termination
    }
}

public extension HTTPHandler {
    var everyLineHeaderNames: [String] { [] }
}
