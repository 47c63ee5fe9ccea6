#if !ABCTL_EVENT_STORE
/// A build without the EventStore target: the routes that write events answer 501.
extension APIServer {
    func events(_ request: HTTPRequest) throws -> HandlerOutcome {
        throw APIError(.notImplemented, code: "not_implemented", "this build of abctl has no event store")
    }

    func revenueCat(_ request: HTTPRequest) throws -> HandlerOutcome {
        throw APIError(.notImplemented, code: "not_implemented", "this build of abctl has no event store")
    }
}
#endif
