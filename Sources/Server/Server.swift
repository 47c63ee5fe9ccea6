import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import SystemCall
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve`: loads experiments, opens the store, serves the API, reloads on SIGHUP and
/// drains on SIGTERM (or SIGINT).
public final class Server: Sendable {
    public struct Configuration: Sendable {
        public var http: HTTPDaemon.Configuration
        public var api: APIServer.Options
        /// The store `abctl` opened from `--db`; the server closes it when it has drained.
        public var store: any EventStore
        /// How long SIGTERM waits for requests in flight before closing connections anyway.
        public var drainTimeoutSeconds: Double

        public init(http: HTTPDaemon.Configuration, api: APIServer.Options, store: any EventStore, drainTimeoutSeconds: Double = 30) {
            self.http = http
            self.api = api
            self.store = store
            self.drainTimeoutSeconds = drainTimeoutSeconds
        }
    }

    /// Why the server cannot start; the CLI maps `.configuration` to exit 2 and `.runtime` to exit 3.
    public enum StartError: Error, CustomStringConvertible {
        case configuration(String)
        /// The experiment files have errors (the same ones `abctl validate` reports).
        case invalidExperiments(String)
        case runtime(String)

        public var description: String {
            switch self {
            case .configuration(let s), .invalidExperiments(let s), .runtime(let s): s
            }
        }
    }

    public let configuration: Configuration
    public let api: APIServer
    /// The process's log (standard error), handed to every part of the server that writes a line.
    let log: Log
    let backend: Backend

    /// Refuses a host that is not an address, and any but loopback when no API keys are set.
    /// `abctl serve` calls it before opening the store, so a usage error is not hidden behind one.
    public static func checkListening(host: String, keys: APIKeys) throws(StartError) {
        guard keys.isEmpty else { return }
        guard let address = Listener.Address(host: host) else {
            throw .configuration("--host '\(host)' is not a numeric IPv4 or IPv6 address (or localhost)")
        }
        guard address.isLoopback else {
            throw .configuration("refusing to listen on \(host) without API keys; configure ABCTL_API_KEYS or --keys-file, or listen on 127.0.0.1")
        }
    }

    /// Loads the experiments and opens the sticky readers; nothing listens yet.
    public init(configuration: Configuration) throws(StartError) {
        try Self.checkListening(host: configuration.http.host, keys: configuration.api.keys)
        // Connections need open files: check an asked-for limit before anything opens.
        let files = FileLimit.raiseToHard()
        let capacity = FileLimit.capacity(fileLimit: files.soft, threads: configuration.http.threads)
        if let asked = configuration.http.connectionLimit, asked > capacity {
            throw .configuration("--max-connections \(asked) needs \(asked + FileLimit.reserve(threads: configuration.http.threads)) open files, but this process may open \(files.soft) (ulimit -n; hard limit \(files.hard)); ask for at most \(capacity)")
        }
        self.configuration = configuration
        log = .shared
        let backend: Backend
        do {
            backend = try Backend(store: configuration.store, readers: configuration.http.threads + 2, log: log)
        } catch {
            throw .runtime("cannot open the event store's sticky readers: \(error)")
        }
        self.backend = backend
        let snapshot: ExperimentSnapshot
        do {
            snapshot = try backend.makeSnapshot(directory: configuration.api.experimentsDirectory)
        } catch let error as ExperimentLoader.LoadError {
            throw .invalidExperiments("cannot serve \(configuration.api.experimentsDirectory): \(error.description)")
        } catch {
            throw .runtime("cannot serve: \(error)")
        }
        api = APIServer(options: configuration.api, snapshot: snapshot, backend: backend, log: log)
    }

    /// Serves until SIGTERM or SIGINT, then drains and returns. `ready` gets the bound port.
    public func run(ready: (UInt16) -> Void) throws(StartError) {
        let signals = SignalWatcher([SIGHUP, SIGTERM, SIGINT])
        let daemon: HTTPDaemon
        do {
            daemon = try HTTPDaemon(configuration: configuration.http, handler: api, stats: api.connections)
        } catch {
            throw .runtime(error.description)
        }
        log.write(level: .info, "listening", [
            "host": .string(configuration.http.host), "port": .number(Double(daemon.port)),
            "threads": .number(Double(configuration.http.threads)),
            "auth": .string(configuration.api.keys.isEmpty ? "none (loopback only)" : "\(configuration.api.keys.count) keys"),
            "max_connections": .number(Double(daemon.connectionLimit)),
            "max_connections_per_ip": .number(Double(configuration.http.maxConnectionsPerIP)),
            "open_files_limit": .number(Double(daemon.fileLimit.soft)),
            "open_files_raised_from": daemon.fileLimit.raisedFrom.map { .number(Double($0)) } ?? .null,
            "header_timeout_s": .number(configuration.http.headTimeoutSeconds),
        ])
        if configuration.http.connectionLimit == nil, daemon.connectionLimit < FileLimit.defaultConnections {
            log.write(level: .warning, "the open-file limit allows fewer connections than the default", [
                "max_connections": .number(Double(daemon.connectionLimit)), "default": .number(Double(FileLimit.defaultConnections)),
                "open_files_limit": .number(Double(daemon.fileLimit.soft)),
            ])
        }
        api.safeguards.start()
        api.consoleRefresher.start()
        ready(daemon.port)

        while true {
            let signal = signals.next()
            if signal == SIGHUP {
                api.reload()
                continue
            }
            break
        }
        log.write(level: .info, "draining", ["in_flight": .number(Double(daemon.requestsInFlight))])
        api.beginDraining()
        daemon.quiesce()
        let drained = daemon.waitUntilIdle(timeoutSeconds: configuration.drainTimeoutSeconds)
        // With requests still suspended (a store that never answered), stopping libmicrohttpd
        // would free connections a late commit callback could still resume: exit without it.
        if drained { daemon.stop() }
        api.consoleRefresher.stop()
        api.safeguards.stop()
        backend.close()
        log.write(level: drained ? .info : .warning, drained ? "stopped" : "stopped before every request finished",
                         ["in_flight": .number(Double(daemon.requestsInFlight))])
        log.flush()
    }
}

/// Turns SIGHUP, SIGTERM and SIGINT into values read on the main thread (the self-pipe trick):
/// the C handler only writes the signal number to a pipe, which is async-signal-safe.
final class SignalWatcher: Sendable {
    private let readFD: Int32

    init(_ signals: [Int32]) {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        readFD = fds[0]
        signalPipeWriteFD = fds[1]
        Glibc.signal(SIGPIPE, SIG_IGN)
        // A parent may have left these blocked (the mask survives exec); unblock them before any
        // server thread starts, as threads inherit the mask.
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for s in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(s, &action, nil)
        }
    }

    /// Blocks until a watched signal arrives.
    func next() -> Int32 {
        var byte: UInt8 = 0
        let n = try? SystemCall.retrying { read(readFD, &byte, 1) }
        return n == 1 ? Int32(byte) : SIGTERM
    }
}

/// Written once before the handler is installed, then only read (by the handler).
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

private let signalHandler: @convention(c) (Int32) -> Void = { signal in
    var byte = UInt8(truncatingIfNeeded: signal)
    let saved = errno
    _ = write(signalPipeWriteFD, &byte, 1)
    errno = saved
}
