import Synchronization

/// The API keys in force: those the server started with, replaced whole when their file is read
/// again (SIGHUP), so a removed key or a lost scope stops working at once, console sessions
/// included. A request reads them once, through `current`.
public final class KeyRing: Sendable {
    private let held: Mutex<APIKeys>

    public init(_ keys: APIKeys) { held = Mutex(keys) }

    public var current: APIKeys { held.withLock { $0 } }

    /// Puts `keys` in force. Keys never become none: a server with keys may listen beyond
    /// loopback, where no keys would open every route.
    func replace(with keys: APIKeys) throws(APIKeys.ConfigurationError) {
        guard !keys.isEmpty else {
            throw APIKeys.ConfigurationError(description: "the keys file now holds no key; a server started with keys keeps them (write at least one key)")
        }
        held.withLock { $0 = keys }
    }
}
