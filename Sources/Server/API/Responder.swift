import HTTPTransport

/// One request as a handler sees it: the HTTP request, the path's captures and how it was authorized.
public struct APIRequest: Sendable {
    public let http: HTTPRequest
    /// `{name}` segments of the route's pattern, percent-decoded.
    public let captures: [String: String]
    /// True when an `app` key made the request through a route that allows it.
    public var viaAppScope = false

    public init(_ http: HTTPRequest, captures: [String: String] = [:]) {
        self.http = http
        self.captures = captures
    }

    public var body: [UInt8] { http.body }
}

/// A handler: a small value holding exactly what it reads (its dependencies), answering one route.
public protocol Responder: Sendable {
    func respond(to request: APIRequest) throws -> HandlerOutcome
}

/// A responder made of a closure, for routes whose answer is one expression.
struct ClosureResponder: Responder {
    let body: @Sendable (APIRequest) throws -> HandlerOutcome

    func respond(to request: APIRequest) throws -> HandlerOutcome { try body(request) }
}
