import HTTPTransport

/// Who may call a route, as the route table declares it.
public enum RouteAccess: Sendable {
    /// Anyone (health, metrics, the document).
    case open
    /// A key with `scope` (or `admin`); with `allowsApp`, an `app` key too, marked on the request;
    /// with `allowsReport`, a `report` key too (a route that only reads).
    case scoped(APIKeys.Scope, allowsApp: Bool = false, allowsReport: Bool = false)
    /// The handler checks a vendor's credential itself; `schemes` names it in the document.
    case vendor(schemes: [String])
}

/// The middleware that checks a route's access before its handler runs (Hummingbird's middleware):
/// handlers never look at keys.
struct Authorized: Responder {
    let keys: KeyRing
    let scope: APIKeys.Scope
    let allowsApp: Bool
    var allowsReport = false
    let next: any Responder

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        var request = request
        request.viaAppScope = try authorize(request.http)
        return try next.respond(to: request)
    }

    /// With no keys configured every route is open (the server then listens on loopback only).
    /// True when the key may call the route only through its `app` scope.
    private func authorize(_ request: HTTPRequest) throws(APIError) -> Bool {
        let keys = self.keys.current
        guard !keys.isEmpty else { return false }
        guard let scopes = keys.scopes(authorization: request.authorization) else {
            throw APIError(.unauthorized, code: "unauthorized",
                           request.authorization == nil ? "missing API key; send 'Authorization: Bearer KEY'" : "unknown API key")
        }
        if scopes.contains(scope) || scopes.contains(.admin) || (allowsReport && scopes.contains(.report)) { return false }
        guard allowsApp && scopes.contains(.app) else {
            throw APIError(.forbidden, code: "insufficient_scope", "this key lacks the '\(scope.rawValue)' scope")
        }
        return true
    }
}
