/// A purchase-side event logged through a client whose key is an `app` key: refused on
/// the device at once, since the server would refuse it (403) and revenue must come from the
/// store webhooks or a server's `ingest` key.
public struct AppKeyRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: ClientEvent.Kind

    public var description: String {
        "'\(kind.name)' is not logged through an app key: purchases reach abctl from the store webhooks (or a server's ingest key)"
    }
}
