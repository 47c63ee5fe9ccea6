import ExperimentDefinitions
import HTTPTransport
import Synchronization

/// The server's own state that `/healthz` and `/metrics` show: draining, uptime, the last refused reload.
public final class ServerStatus: Sendable {
    private let draining = Atomic<Bool>(false)
    private let started = Monotonic.seconds()
    private let refusedReload = Mutex<JSONValue?>(nil)

    init() {}

    public var isDraining: Bool { draining.load(ordering: .relaxed) }
    func beginDraining() { draining.store(true, ordering: .relaxed) }

    var uptimeSeconds: Double { Monotonic.seconds() - started }

    /// `last_reload_error` of /healthz: the time and problems of the last refused reload, until a
    /// later reload succeeds (nil).
    var lastReloadError: JSONValue? {
        get { refusedReload.withLock { $0 } }
    }

    func setLastReloadError(_ value: JSONValue?) { refusedReload.withLock { $0 = value } }
}
