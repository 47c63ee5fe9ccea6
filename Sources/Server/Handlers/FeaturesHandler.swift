import HTTPTransport

/// `GET /api/features/{clientKey}`.
struct FeaturesHandler: Responder {
    let keys: KeyRing
    let snapshots: SnapshotHolder

    /// `GET /api/features/{clientKey}`: the experiments as a GrowthBook SDK payload.
    ///
    /// The client key is a key with the `sdk` scope (with no keys configured, any key: the
    /// server is then on loopback only). The payload is cached per snapshot; `If-None-Match`
    /// with its `ETag` answers 304 with no body.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let clientKey = request.captures["clientKey"] ?? ""
        let keys = self.keys.current
        if !keys.isEmpty, !keys.isClientKey(clientKey) {
            throw APIError(.unauthorized, code: "unauthorized", "unknown client key; GrowthBook SDKs need a key with the 'sdk' scope")
        }
        let payload = snapshots.snapshot.features.payload
        let headers = [("ETag", payload.etag), ("Cache-Control", "no-cache")]
        if let given = request.http.header("If-None-Match"), Self.entityTagMatches(given, payload.etag) {
            return .response(HTTPResponse(status: 304, headers: headers, body: []))
        }
        return .response(HTTPResponse(status: 200, headers: headers, body: payload.body))
    }

    /// RFC 9110 weak comparison for `If-None-Match`: `*`, or any listed tag equal with `W/` dropped.
    static func entityTagMatches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingSpaces()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
