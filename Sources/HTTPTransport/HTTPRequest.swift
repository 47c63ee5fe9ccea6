/// One HTTP request as the handlers see it: the body is complete and the headers they need are copied out.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoding left to the router.
    public var path: String
    public var query: String?
    /// The `Authorization` header, if any.
    public var authorization: String?
    /// The `If-None-Match` header, if any (`GET /api/features` answers 304 when it matches).
    public var ifNoneMatch: String?
    /// `Stripe-Signature`, read only for the Stripe webhook.
    public var stripeSignature: String?
    public var body: [UInt8]

    public init(method: String, path: String, query: String? = nil, authorization: String? = nil, body: [UInt8] = [],
                ifNoneMatch: String? = nil, stripeSignature: String? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.stripeSignature = stripeSignature
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
    }
}
