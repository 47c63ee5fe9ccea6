
/// Matches a method and path to a route; `{name}` segments capture one path segment.
public struct Router: Sendable {
    /// A route ready to answer: its description and its handler behind the access middleware.
    /// A class: a match hands out one reference instead of copying the fields.
    public final class Route: Sendable {
        public let spec: RouteSpec
        public let responder: any Responder
        let segments: [Substring]

        public var method: String { spec.method }
        public var pattern: String { spec.pattern }

        public init(_ spec: RouteSpec, responder: any Responder) {
            self.spec = spec
            self.responder = responder
            self.segments = spec.pattern.split(separator: "/")
        }

        func match(_ path: [Substring]) -> [String: String]? {
            guard path.count == segments.count else { return nil }
            var captures: [String: String] = [:]
            for (want, got) in zip(segments, path) {
                if want.first == "{", want.last == "}" {
                    guard let decoded = Router.percentDecode(got), !decoded.isEmpty else { return nil }
                    captures[String(want.dropFirst().dropLast())] = decoded
                } else if want != got {
                    return nil
                }
            }
            return captures
        }
    }

    public enum Match {
        case found(Route, [String: String])
        /// The path exists with other methods.
        case wrongMethod(pattern: String, allowed: [String])
        case notFound
    }

    public let routes: [Route]
    /// Routes without captures: the common request is found by comparing its path with a
    /// handful of strings (cheaper than hashing it), not by splitting it (a literal pattern wins
    /// over a capture matching the same path).
    private let literal: [Route]

    public init(_ routes: [Route]) {
        self.routes = routes
        literal = routes.filter { !$0.segments.contains(where: { $0.first == "{" }) }
    }

    public func match(method: String, path: String) -> Match {
        if let route = literal.first(where: { $0.pattern == path && $0.method == method }) { return .found(route, [:]) }
        let parts = path.split(separator: "/")
        var allowed: [String] = []
        var pattern = ""
        for route in routes {
            guard let captures = route.match(parts) else { continue }
            if route.method == method { return .found(route, captures) }
            allowed.append(route.method)
            pattern = route.pattern
        }
        return allowed.isEmpty ? .notFound : .wrongMethod(pattern: pattern, allowed: allowed)
    }

    /// `%XX` decoding of one path segment; nil when malformed or not UTF-8.
    static func percentDecode(_ s: Substring) -> String? {
        guard s.contains("%") else { return String(s) }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                guard it.count >= 2, let h = hex(it.popFirst()!), let l = hex(it.popFirst()!) else { return nil }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
