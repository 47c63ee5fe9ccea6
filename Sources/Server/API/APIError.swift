import ExperimentDefinitions
import HTTPTransport

/// An error a client can act on: what kind (which fixes the HTTP status), a stable code, a
/// sentence, and the request field at fault.
public struct APIError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The body is not JSON, or a field is missing or has the wrong type or value.
        case badRequest
        /// No key, an unknown key, or a webhook without the configured authorization.
        case unauthorized
        /// A known key without the scope the endpoint needs.
        case forbidden
        case notFound
        case methodNotAllowed(allowed: [String])
        case payloadTooLarge
        case headersTooLarge
        /// The request's head or body did not arrive before its deadline.
        case requestTimeout
        /// Valid JSON, but an event breaks the rules an event must follow.
        case unprocessable
        /// The event store cannot take writes; nothing was acknowledged.
        case unavailable
    }

    public var kind: Kind
    public var code: String
    public var message: String
    public var field: String?
    /// Extra members of the response object, beside `error` (e.g. per-line rejections).
    public var details: [(String, JSONValue)] = []
    /// Seconds after which the same request may succeed (`Retry-After`), when the refusal is a
    /// passing load rather than an outage.
    public var retryAfterSeconds: Int?

    public init(_ kind: Kind, code: String, _ message: String, field: String? = nil, details: [(String, JSONValue)] = []) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
        self.details = details
    }

    public static func == (a: APIError, b: APIError) -> Bool {
        a.kind == b.kind && a.code == b.code && a.message == b.message && a.field == b.field
    }

    static func badRequest(_ code: String, _ message: String, field: String? = nil) -> APIError {
        APIError(.badRequest, code: code, message, field: field)
    }
}

/// The one place errors become HTTP responses (status and `{"error": {code, message, field}}`).
///
/// `APIError` maps by kind; anything else is a bug or an outage the client cannot fix: it is
/// logged with its details and answered with a generic 500 that echoes nothing.
public enum ErrorResponses {
    public static func status(for kind: APIError.Kind) -> Int {
        switch kind {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .payloadTooLarge: 413
        case .headersTooLarge: 431
        case .requestTimeout: 408
        case .unprocessable: 422
        case .unavailable: 503
        }
    }

    public static func response(for error: any Error, route: String, log: Log) -> HTTPResponse {
        guard let apiError = error as? APIError else {
            log.write(level: .error, "unexpected error", ["route": .string(route), "error": .string(String(describing: error))])
            return body(status: 500, code: "internal_error", message: "the server failed to handle the request; the details are in its log", field: nil, details: [])
        }
        var response = body(status: status(for: apiError.kind), code: apiError.code, message: apiError.message,
                            field: apiError.field, details: apiError.details)
        switch apiError.kind {
        case .methodNotAllowed(let allowed): response.headers.append(("Allow", allowed.joined(separator: ", ")))
        case .unauthorized: response.headers.append(("WWW-Authenticate", "Bearer"))
        default: break
        }
        if let seconds = apiError.retryAfterSeconds { response.headers.append(("Retry-After", String(seconds))) }
        return response
    }

    static func body(status: Int, code: String, message: String, field: String?, details: [(String, JSONValue)]) -> HTTPResponse {
        var error: [(String, JSONValue)] = [("code", .string(code)), ("message", .string(message))]
        if let field { error.append(("field", .string(field))) }
        return .json(.object([("error", .object(error))] + details), status: status)
    }
}
