import Synchronization

/// At most one log line per kind every `everySeconds`, carrying how many were held back, so a
/// flood of hostile clients (or of libmicrohttpd's notes about them) cannot flood the log.
final class LogThrottle: Sendable {
    let everySeconds: Double
    private let kinds = Mutex<[String: (last: Double, held: Int)]>([:])

    init(everySeconds: Double) {
        self.everySeconds = everySeconds
    }

    /// nil when a line of this kind went out less than `everySeconds` ago; otherwise how many
    /// occurred since the last line (this one included). The first of a kind goes out at once.
    func admit(_ kind: String, now: Double = Monotonic.seconds()) -> Int? {
        kinds.withLock { kinds in
            var entry = kinds[kind] ?? (last: -.infinity, held: 0)
            entry.held += 1
            defer { kinds[kind] = entry }
            guard now - entry.last >= everySeconds else { return nil }
            let count = entry.held
            entry = (now, 0)
            return count
        }
    }
}
