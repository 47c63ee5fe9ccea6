/// One HTTP request as the handlers see it: the body is complete and the headers the handler
/// asked for (`HTTPHandler.requestHeaderNames`) are copied out.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoding left to the router.
    public var path: String
    public var query: String?
    /// The headers the handler reads, as sent (names compared case-insensitively by `header(_:)`).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The client's address (`192.0.2.1`, or an IPv6 address as its eight groups of hex digits); nil when unknown.
    public var peer: String?

    public init(method: String, path: String, query: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (ASCII case-insensitive), if it was sent.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the header `name`, in the order sent (the transport copies more than the
    /// first only for `HTTPHandler.everyLineHeaderNames`).
    public func headers(_ name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// `Authorization`, the one header every scoped route reads.
    public var authorization: String? { header("Authorization") }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }
}
