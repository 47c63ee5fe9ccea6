import Synchronization

/// Connection counts for `GET /metrics`: open, accepted, refused, cut by phase, lingering closes.
/// Each kind of cut also logs one line at most every `logEverySeconds`, with the count since the
/// last line, so a flood of hostile clients cannot flood the log; libmicrohttpd's own notes go
/// through the same throttle and the same `log`.
public final class ConnectionStats: Sendable {
    public enum Refusal: String, Sendable, CaseIterable {
        /// `--max-connections` reached.
        case limit
        /// `--max-connections-per-ip` reached for the client's address.
        case perIP = "per_ip"
    }

    /// Why the server ended a connection itself.
    public enum Cut: String, Sendable, CaseIterable {
        /// The request line and headers did not arrive in time (answered 408).
        case head
        /// The body did not arrive in time (answered 408).
        case body
        /// The client did not read its answer in time.
        case write
        /// Nothing arrived on a kept-alive connection for `--timeout`.
        case idle
    }

    private let throttle: LogThrottle
    private let log: @Sendable (TransportNote) -> Void
    private let open = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let refusedAtLimit = Atomic<Int>(0)
    private let refusedPerIP = Atomic<Int>(0)
    private let cutHead = Atomic<Int>(0)
    private let cutBody = Atomic<Int>(0)
    private let cutWrite = Atomic<Int>(0)
    private let cutIdle = Atomic<Int>(0)
    private let lingering = Atomic<Int>(0)
    private let lingered = Atomic<Int>(0)
    private let limits = Mutex<(connections: Int, fileLimit: Int)>((0, 0))

    public init(logEverySeconds: Double = 10, log: @escaping @Sendable (TransportNote) -> Void = { _ in }) {
        throttle = LogThrottle(everySeconds: logEverySeconds)
        self.log = log
    }

    public var openConnections: Int { open.load(ordering: .relaxed) }

    func opened() {
        open.add(1, ordering: .relaxed)
        accepted.add(1, ordering: .relaxed)
    }

    func closed() { open.subtract(1, ordering: .relaxed) }

    func refused(_ reason: Refusal) {
        switch reason {
        case .limit: refusedAtLimit.add(1, ordering: .relaxed)
        case .perIP: refusedPerIP.add(1, ordering: .relaxed)
        }
        rateLimitedLog("connection refused", kind: reason.rawValue)
    }

    func cut(_ kind: Cut) {
        switch kind {
        case .head: cutHead.add(1, ordering: .relaxed)
        case .body: cutBody.add(1, ordering: .relaxed)
        case .write: cutWrite.add(1, ordering: .relaxed)
        case .idle: cutIdle.add(1, ordering: .relaxed)
        }
        rateLimitedLog("connection cut", kind: kind.rawValue)
    }

    func lingerStarted() {
        lingering.add(1, ordering: .relaxed)
        lingered.add(1, ordering: .relaxed)
    }

    func lingerEnded() { lingering.subtract(1, ordering: .relaxed) }

    func setLimits(connections: Int, fileLimit: Int) { limits.withLock { $0 = (connections, fileLimit) } }

    public func count(refused reason: Refusal) -> Int {
        switch reason {
        case .limit: refusedAtLimit.load(ordering: .relaxed)
        case .perIP: refusedPerIP.load(ordering: .relaxed)
        }
    }

    public func count(cut kind: Cut) -> Int {
        switch kind {
        case .head: cutHead.load(ordering: .relaxed)
        case .body: cutBody.load(ordering: .relaxed)
        case .write: cutWrite.load(ordering: .relaxed)
        case .idle: cutIdle.load(ordering: .relaxed)
        }
    }

    private func rateLimitedLog(_ message: String, kind: String) {
        guard let count = throttle.admit(message + " " + kind) else { return }
        log(TransportNote(level: .warning, message, ["kind": .string(kind), "count": .number(Double(count)),
                                                     "open": .number(Double(openConnections)),
                                                     "note": .string("one line per kind every \(Int(throttle.everySeconds)) s at most; count is since the last one")]))
    }

    /// One of libmicrohttpd's notes (by its format string) every `logEverySeconds` at most, with the count.
    func libraryNote(format: String, text: () -> String) {
        guard let count = throttle.admit("libmicrohttpd " + format) else { return }
        log(TransportNote(level: .warning, "libmicrohttpd", ["detail": .string(text()), "count": .number(Double(count))]))
    }

    func error(_ message: String, _ fields: [String: TransportNote.Value]) {
        log(TransportNote(level: .error, message, fields))
    }

    /// Prometheus text lines.
    public func render() -> String {
        let (limit, fileLimit) = limits.withLock { $0 }
        var out = ""
        out += "# HELP abctl_http_connections_open Connections open now.\n# TYPE abctl_http_connections_open gauge\n"
        out += "abctl_http_connections_open \(open.load(ordering: .relaxed))\n"
        out += "# HELP abctl_http_connections_limit Connections the server keeps open at most (--max-connections).\n# TYPE abctl_http_connections_limit gauge\n"
        out += "abctl_http_connections_limit \(limit)\n"
        out += "# HELP abctl_process_open_files_limit The process's open-file limit (soft, after raising it to the hard one).\n# TYPE abctl_process_open_files_limit gauge\n"
        out += "abctl_process_open_files_limit \(fileLimit)\n"
        out += "# HELP abctl_http_connections_accepted_total Connections accepted.\n# TYPE abctl_http_connections_accepted_total counter\n"
        out += "abctl_http_connections_accepted_total \(accepted.load(ordering: .relaxed))\n"
        out += "# HELP abctl_http_connections_refused_total Connections closed at once on arrival, by reason.\n# TYPE abctl_http_connections_refused_total counter\n"
        for reason in Refusal.allCases {
            out += "abctl_http_connections_refused_total{reason=\"\(reason.rawValue)\"} \(count(refused: reason))\n"
        }
        out += "# HELP abctl_http_connections_timed_out_total Connections the server cut for being too slow, by phase.\n# TYPE abctl_http_connections_timed_out_total counter\n"
        for kind in Cut.allCases {
            out += "abctl_http_connections_timed_out_total{phase=\"\(kind.rawValue)\"} \(count(cut: kind))\n"
        }
        out += "# HELP abctl_http_connections_lingering Connections read and discarded after an early answer (413) before closing.\n# TYPE abctl_http_connections_lingering gauge\n"
        out += "abctl_http_connections_lingering \(lingering.load(ordering: .relaxed))\n"
        out += "# HELP abctl_http_lingering_closes_total Lingering closes begun.\n# TYPE abctl_http_lingering_closes_total counter\n"
        out += "abctl_http_lingering_closes_total \(lingered.load(ordering: .relaxed))\n"
        return out
    }
}
