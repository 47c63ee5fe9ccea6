import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server over libmicrohttpd: a pool of threads, each with its own epoll set.
///
/// Bodies are read whole (up to `maxBodyBytes`) before the handler runs; handlers answer at
/// once or defer (the connection is suspended, so no thread waits). Keep-alive works because the
/// answer is always queued on a later call of the access handler than the first.
///
/// `@unchecked Sendable`: `daemon` is written once in `init` and only read afterwards; `listener`
/// and `quiesced` change only under `lifecycle`; libmicrohttpd's calls are thread-safe for
/// the functions used here (`MHD_quiesce_daemon`, `MHD_stop_daemon` once, `MHD_resume_connection`).
public final class HTTPDaemon: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port; read `port` after start.
        public var port: UInt16
        public var threads: Int
        public var maxBodyBytes: Int
        /// The request line and headers may take this many bytes; past it the handler's 431 answers.
        public var maxHeaderBytes: Int
        /// Per-connection memory for the request line, headers and read buffer. Headers that do not
        /// fit never reach the handler: libmicrohttpd answers its own 431 (an HTML body). Kept about
        /// twice `maxHeaderBytes`, so that only a request far over the limit gets that answer.
        /// libmicrohttpd zeroes the whole pool after every request: at 16 KiB instead of 32 KiB the
        /// pools of 64 keep-alive connections stay in cache, and the server spends less per request.
        public var connectionMemoryBytes: Int
        /// A kept-alive connection with nothing arriving for this long is closed.
        public var idleTimeoutSeconds: Int
        /// The whole request line and headers must arrive within this long (408 otherwise).
        public var headTimeoutSeconds: Double
        /// The body must arrive within this long plus its size at `minBytesPerSecond` (408 otherwise).
        public var bodyTimeoutSeconds: Double
        /// The answer must be read within this long plus its size at `minBytesPerSecond`.
        public var writeTimeoutSeconds: Double
        public var minBytesPerSecond: Int
        /// nil: `FileLimit.defaultConnections`, or fewer if the open-file limit allows fewer.
        public var connectionLimit: Int?
        /// 0: no per-address limit (behind a load balancer every connection has its address).
        public var maxConnectionsPerIP: Int

        public init(host: String = "127.0.0.1", port: UInt16 = 0, threads: Int = 4, maxBodyBytes: Int = 16 << 20,
                    maxHeaderBytes: Int = 8 << 10, connectionMemoryBytes: Int = 16 << 10, idleTimeoutSeconds: Int = 30,
                    headTimeoutSeconds: Double = 10, bodyTimeoutSeconds: Double = 10, writeTimeoutSeconds: Double = 10,
                    minBytesPerSecond: Int = 16 << 10, connectionLimit: Int? = nil, maxConnectionsPerIP: Int = 0) {
            self.host = host
            self.port = port
            self.threads = threads
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.connectionMemoryBytes = connectionMemoryBytes
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.headTimeoutSeconds = headTimeoutSeconds
            self.bodyTimeoutSeconds = bodyTimeoutSeconds
            self.writeTimeoutSeconds = writeTimeoutSeconds
            self.minBytesPerSecond = minBytesPerSecond
            self.connectionLimit = connectionLimit
            self.maxConnectionsPerIP = maxConnectionsPerIP
        }

        /// The connection limit in force: the one asked for, else the default within the open-file limit.
        public func resolvedConnectionLimit(fileLimit: Int) -> Int {
            connectionLimit ?? min(FileLimit.defaultConnections, FileLimit.capacity(fileLimit: fileLimit, threads: threads))
        }
    }

    public let configuration: Configuration
    /// The port actually bound (useful with port 0).
    public let port: UInt16
    let handler: any HTTPHandler
    /// The headers copied into each request: the handler's, read once.
    private let requestHeaderNames: [String]
    private let everyLineHeaderNames: [String]
    private var daemon: OpaquePointer?
    private let lifecycle = Mutex<Lifecycle>(Lifecycle())
    /// Requests begun and not yet completed (including suspended ones).
    private let inFlight = Atomic<Int>(0)
    /// Set while draining: responses carry `Connection: close`.
    private let draining = Atomic<Bool>(false)
    public let stats: ConnectionStats
    /// The open-file limit read (and raised) at start.
    public let fileLimit: FileLimit.Reading
    /// Connections held at most; past it new ones are closed on arrival.
    public let connectionLimit: Int
    private let watch: DeadlineWatch
    private let linger: LingeringCloser
    private let connectionsPerIP = Mutex<[PeerAddress: Int]>([:])

    private struct Lifecycle {
        var listener: Int32 = -1
        var quiesced = false
        var stopped = false
    }

    public init(configuration: Configuration, handler: any HTTPHandler, stats: ConnectionStats = ConnectionStats()) throws(CCallError) {
        self.configuration = configuration
        self.handler = handler
        requestHeaderNames = handler.requestHeaderNames
        everyLineHeaderNames = handler.everyLineHeaderNames
        self.stats = stats
        fileLimit = FileLimit.raiseToHard()
        connectionLimit = max(1, configuration.resolvedConnectionLimit(fileLimit: fileLimit.soft))
        stats.setLimits(connections: connectionLimit, fileLimit: fileLimit.soft)
        watch = DeadlineWatch(limits: DeadlineWatch.Limits(
            headMS: Int64(configuration.headTimeoutSeconds * 1000), bodyMS: Int64(configuration.bodyTimeoutSeconds * 1000),
            writeMS: Int64(configuration.writeTimeoutSeconds * 1000), idleMS: Int64(configuration.idleTimeoutSeconds) * 1000,
            minBytesPerSecond: configuration.minBytesPerSecond), stats: stats, timeoutAnswer: handler.requestTimeout())
        linger = LingeringCloser(limits: LingeringCloser.Limits(maxBytes: max(64 << 20, 8 * configuration.maxBodyBytes)), stats: stats)
        let listener: Listener
        do {
            listener = try Listener.open(host: configuration.host, port: configuration.port)
        } catch {
            watch.stop()
            linger.stop()
            throw error
        }
        self.port = listener.port
        lifecycle.withLock { $0.listener = listener.fd }

        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        if listener.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let arguments: [CVarArg] = [
            // The logger first, so libmicrohttpd reports even option errors through it.
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, unsafeBitCast(logCallback, to: OpaquePointer.self), OpaquePointer(me),
            MHD_OPTION.LISTEN_SOCKET.rawValue, listener.fd,
            MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(max(1, configuration.threads)),
            // Above the server's own limit, which the accept policy enforces by closing new connections
            // at once: libmicrohttpd at its limit stops accepting, and clients would wait in the queue.
            MHD_OPTION.CONNECTION_LIMIT.rawValue,
            UInt32(max(connectionLimit, FileLimit.capacity(fileLimit: fileLimit.soft, threads: configuration.threads)) + 64),
            // A backstop only: the deadline watch closes idle connections a second earlier and counts them.
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(1, configuration.idleTimeoutSeconds + 1)),
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Int(configuration.connectionMemoryBytes),
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completedCallback, to: OpaquePointer.self), OpaquePointer(me),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionCallback, to: OpaquePointer.self), OpaquePointer(me),
            MHD_OPTION.END.rawValue,
        ]
        let context = "starting libmicrohttpd on \(configuration.host):\(listener.port)"
        do {
            daemon = try CCall.check("MHD_start_daemon_va", context) {
                withVaList(arguments) { MHD_start_daemon_va(flags, 0, acceptCallback, me, accessCallback, me, $0) }
            }
        } catch {
            close(listener.fd)
            watch.stop()
            linger.stop()
            throw error
        }
    }

    deinit { stop() }

    /// Requests begun and not yet answered or abandoned.
    public var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }

    /// Stops accepting connections; connections already open are still served. Responses from
    /// now on carry `Connection: close`.
    public func quiesce() {
        draining.store(true, ordering: .releasing)
        lifecycle.withLock { state in
            guard !state.quiesced, !state.stopped, let daemon else { return }
            state.quiesced = true
            let fd = MHD_quiesce_daemon(daemon)
            if fd >= 0 { close(fd) }
            state.listener = -1
        }
    }

    /// Waits until no request is in flight, or the deadline passes; true when drained.
    public func waitUntilIdle(timeoutSeconds: Double) -> Bool {
        let deadline = Monotonic.seconds() + timeoutSeconds
        while inFlight.load(ordering: .acquiring) > 0 {
            if Monotonic.seconds() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// Closes every connection and joins libmicrohttpd's threads.
    public func stop() {
        let toStop: OpaquePointer? = lifecycle.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return daemon
        }
        if let toStop { MHD_stop_daemon(toStop) }
        watch.stop()
        linger.stop()
    }

    // MARK: Callbacks (called on libmicrohttpd's threads)

    fileprivate func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        guard let raw = slot.pointee else {
            // First call: the headers are in. Answer nothing yet (an answer now means Connection: close),
            // except to refuse a declared body over the limit before reading it.
            // libmicrohttpd hands the path without its query string and keeps the arguments apart.
            let context = RequestContext(method: String(cString: method), target: String(cString: url), query: Self.query(connection))
            context.route = handler.route(method: context.method, path: context.path)
            context.connection = Self.state(of: connection)
            slot.pointee = Unmanaged.passRetained(context).toOpaque()
            inFlight.add(1, ordering: .acquiringAndReleasing)
            let declared = header(connection, "Content-Length").flatMap { Int($0) }
            context.declaredBytes = declared
            // The head is in: the body has its own deadline, growing with its announced size.
            guard context.connection?.enter(.body, deadline: context.startedMS + watch.limits.body(bytes: max(0, min(declared ?? 0, configuration.maxBodyBytes)))) ?? true else {
                return false
            }
            if context.method.utf8.count + context.target.utf8.count + Self.headerBytes(connection) > configuration.maxHeaderBytes {
                context.connection?.lingerOnClose.store(true, ordering: .relaxed)
                return queue(handler.headersTooLarge(limit: configuration.maxHeaderBytes), on: connection, context, close: true)
            }
            if let declared {
                if declared > configuration.maxBodyBytes {
                    // Answered before the body is read: the client may still be writing it, so the
                    // connection lingers (LingeringCloser) and the client gets to read the 413.
                    context.bodyTooLarge = true
                    context.connection?.lingerOnClose.store(true, ordering: .relaxed)
                    return queue(handler.payloadTooLarge(limit: configuration.maxBodyBytes), on: connection, context, close: true)
                }
                // Reserve for what is announced, but not more than 1 MiB before bytes arrive: a client
                // announcing 16 MiB on a thousand idle connections must not make the server allocate it.
                context.body.reserveCapacity(min(declared, 1 << 20))
            }
            return true
        }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()

        let size = uploadSize.pointee
        if size > 0 {
            uploadSize.pointee = 0
            context.bytesIn += size
            if context.status != 0 { return true }   // already answered (413); the rest is skipped
            if !context.bodyTooLarge, context.body.count + size <= configuration.maxBodyBytes, let upload {
                context.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
            } else {
                context.bodyTooLarge = true
                context.body = []
                // Read and drop a chunked body over the limit, but not forever.
                if context.bytesIn > 4 * configuration.maxBodyBytes { return false }
            }
            if context.declaredBytes == nil {
                // A chunked body announces no size: its deadline grows with what has come, a chunk ahead.
                context.connection?.extend(.body, deadline: context.startedMS + watch.limits.body(bytes: context.bytesIn + 65_536))
            }
            return true
        }

        if context.suspended {
            // Resumed after deferred work: its response is waiting.
            guard let response = context.takeDeferred() else { return false }
            return queue(response, on: connection, context)
        }
        if context.status != 0 { return true }
        if context.bodyTooLarge {
            return queue(handler.payloadTooLarge(limit: configuration.maxBodyBytes), on: connection, context, close: true)
        }

        // The body is in; the handler (or the store, for a deferred answer) has no deadline.
        guard context.connection?.enter(.handling, deadline: 0) ?? true else { return false }
        var headers: [(name: String, value: String)] = []
        for name in requestHeaderNames {
            guard let value = header(connection, name) else { continue }
            if everyLineHeaderNames.contains(name) {
                headers += Self.headerLines(connection, name).map { (name, $0) }
            } else {
                headers.append((name, value))
            }
        }
        var request = HTTPRequest(method: context.method, path: context.path, query: context.query, headers: headers, body: context.body)
        request.peer = context.connection?.peerText
        context.body = []
        let result = handler.handle(request)
        context.route = result.route
        switch result.outcome {
        case .response(let response):
            return queue(response, on: connection, context)
        case .deferred(let start):
            context.suspended = true
            MHD_suspend_connection(connection)
            let resumable = SuspendedConnection(connection)
            start { response in
                context.setDeferred(response)
                MHD_resume_connection(resumable.pointer)
            }
            return true
        }
    }

    fileprivate func completed(_ context: RequestContext, code: MHD_RequestTerminationCode) {
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
        var termination = context.termination
        if let state = context.connection {
            if let phase = state.cutIn {
                termination = "\(phase.label)_timeout"
            } else {
                let now = Monotonic.milliseconds()
                state.becameIdle(now: now, checkAt: watch.limits.idleCheck(idleSince: now, now: now))
            }
        }
        if termination == nil, code != MHD_RequestTerminationCode.REQUEST_TERMINATED_COMPLETED_OK {
            switch code {
            case MHD_RequestTerminationCode.REQUEST_TERMINATED_TIMEOUT_REACHED: termination = "idle_timeout"
            case MHD_RequestTerminationCode.REQUEST_TERMINATED_CLIENT_ABORT: termination = "client_abort"
            case MHD_RequestTerminationCode.REQUEST_TERMINATED_DAEMON_SHUTDOWN: termination = "shutdown"
            case MHD_RequestTerminationCode.REQUEST_TERMINATED_READ_ERROR: termination = "read_error"
            default: termination = "error_\(code.rawValue)"
            }
        }
        handler.completed(RequestSummary(method: context.method, path: context.path, route: context.route, status: context.status,
                                         seconds: Monotonic.seconds() - context.started, bytesIn: context.bytesIn,
                                         bytesOut: context.bytesOut, termination: termination))
    }

    /// The headers' size as sent (`name: value` and CRLF each).
    private static func headerBytes(_ connection: OpaquePointer) -> Int {
        var total = 0
        _ = withUnsafeMutablePointer(to: &total) { MHD_get_connection_values_n(connection, .HEADER_KIND, headerSizeCallback, $0) }
        return total
    }

    /// The query string as the client sent it, rebuilt from the arguments libmicrohttpd parsed
    /// (decoded, in order, repeats kept): each name and value percent-encoded again, so the router
    /// decodes them exactly once. Nil when there were none.
    static func query(_ connection: OpaquePointer) -> String? {
        var pairs: [(String, String?)] = []
        _ = withUnsafeMutablePointer(to: &pairs) { MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, queryArgumentCallback, $0) }
        guard !pairs.isEmpty else { return nil }
        return pairs.map { name, value in value.map { "\(percentEncode(name))=\(percentEncode($0))" } ?? percentEncode(name) }.joined(separator: "&")
    }

    static func percentEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Every line of the header `name` as sent, in order (a lookup gives only the first).
    private static func headerLines(_ connection: OpaquePointer, _ name: String) -> [String] {
        var found: (name: [UInt8], values: [String]) = (Array(name.lowercased().utf8), [])
        _ = withUnsafeMutablePointer(to: &found) { MHD_get_connection_values_n(connection, .HEADER_KIND, headerLinesCallback, $0) }
        return found.values
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, _ context: RequestContext, close: Bool = false) -> Bool {
        // The answer must be read in time, longer for a longer answer.
        let deadline = Monotonic.milliseconds() + watch.limits.write(bytes: response.body.count)
        guard context.connection?.enter(.write, deadline: deadline) ?? true else { return false }
        context.status = response.status
        context.bytesOut = response.body.count
        handler.answered(route: context.route, method: context.method, status: response.status, seconds: Monotonic.seconds() - context.started)
        let created = Self.response(of: response.body)
        guard let created else {
            stats.error("could not create a response", ["function": .string("MHD_create_response_from_buffer")])
            return false
        }
        defer { MHD_destroy_response(created) }
        // withCString passes a native string's own bytes; an implicit conversion would copy them.
        _ = response.contentType.withCString { MHD_add_response_header(created, "Content-Type", $0) }
        for (name, value) in response.headers { _ = MHD_add_response_header(created, name, value) }
        if close || draining.load(ordering: .relaxed) { _ = MHD_add_response_header(created, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(response.status), created) == .YES
    }

    /// A body up to this size is copied into libmicrohttpd's response (a copy of a small body costs
    /// less than keeping the array alive for it); a larger one (a console page, a report) is sent
    /// from the array's own bytes, so the thread that queues it copies nothing.
    static let copiedBodyBytes = 16_384

    private static func response(of body: [UInt8]) -> OpaquePointer? {
        guard body.count > copiedBodyBytes else {
            return body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        // The box holds the array (unchanged from here on) until libmicrohttpd frees the response;
        // a native array's elements stay where they are while its storage lives, so the pointer
        // taken here stays valid that long.
        let kept = Unmanaged.passRetained(ResponseBody(body))
        let created = kept.takeUnretainedValue().bytes.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer_with_free_callback_cls(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                                   releaseResponseBody, kept.toOpaque())
        }
        if created == nil { kept.release() }
        return created
    }

    // MARK: Connections (libmicrohttpd's threads)

    /// The accept policy: at the limit (or a client address's limit) a new connection is closed at
    /// once, so clients learn it now instead of waiting in the listen queue.
    fileprivate func admit(_ address: UnsafePointer<sockaddr>?) -> Bool {
        if stats.openConnections >= connectionLimit {
            stats.refused(.limit)
            return false
        }
        if configuration.maxConnectionsPerIP > 0, let address, let peer = PeerAddress(address),
           connectionsPerIP.withLock({ $0[peer, default: 0] }) >= configuration.maxConnectionsPerIP {
            stats.refused(.perIP)
            return false
        }
        return true
    }

    fileprivate func connectionStarted(_ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        let fd = abctl_connection_info(connection, .CONNECTION_INFO_CONNECTION_FD)?.pointee.connect_fd ?? -1
        var peer: PeerAddress?
        if let address = abctl_connection_info(connection, .CONNECTION_INFO_CLIENT_ADDRESS)?.pointee.client_addr {
            peer = PeerAddress(address)
        }
        let state = ConnectionState(fd: fd, peer: peer, headDeadline: Monotonic.milliseconds() + watch.limits.headMS)
        context.pointee = Unmanaged.passRetained(state).toOpaque()
        stats.opened()
        if configuration.maxConnectionsPerIP > 0, let peer { connectionsPerIP.withLock { $0[peer, default: 0] += 1 } }
        watch.add(state)
    }

    /// Called before libmicrohttpd closes the socket, so `fd` is still this connection's here.
    fileprivate func connectionClosed(context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let raw = context.pointee else { return }
        context.pointee = nil
        let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeRetainedValue()
        if state.lingerOnClose.load(ordering: .relaxed), state.cutIn == nil { linger.adopt(duplicateOf: state.fd) }
        state.isOpen.withLock { $0 = false }
        watch.remove(state)
        stats.closed()
        if configuration.maxConnectionsPerIP > 0, let peer = state.peer {
            connectionsPerIP.withLock { counts in
                let left = counts[peer, default: 1] - 1
                counts[peer] = left > 0 ? left : nil
            }
        }
    }

    private static func state(of connection: OpaquePointer) -> ConnectionState? {
        guard let raw = abctl_connection_info(connection, .CONNECTION_INFO_SOCKET_CONTEXT)?.pointee.socket_context else { return nil }
        return Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
    }

    static func split(_ target: String) -> (path: String, query: String?) {
        // By bytes: '?' is ASCII, and Character search would walk grapheme clusters.
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target, nil) }
        return (String(target[..<q]), String(target[target.utf8.index(after: q)...]))
    }
}

/// Per-request state, from the first call of the access handler to the completion callback.
///
/// `@unchecked Sendable`: libmicrohttpd calls one connection's callbacks from one thread at a
/// time, so the plain fields need no lock; the only field written elsewhere (the deferred
/// response, set by a store callback) sits behind a `Mutex`.
final class RequestContext: @unchecked Sendable {
    let method: String
    let target: String
    /// `target` split at its first '?'.
    let path: String
    let query: String?
    let started = Monotonic.seconds()
    let startedMS = Monotonic.milliseconds()
    /// The connection's deadlines; nil only if libmicrohttpd gave no socket context.
    var connection: ConnectionState?
    var declaredBytes: Int?
    var body: [UInt8] = []
    var bodyTooLarge = false
    var bytesIn = 0
    var bytesOut = 0
    var status = 0
    var route = "unmatched"
    var suspended = false
    var termination: String?
    private let deferred = Mutex<HTTPResponse?>(nil)

    init(method: String, target: String, query: String? = nil) {
        self.method = method
        self.target = target
        let split = HTTPDaemon.split(target)
        path = split.path
        self.query = query ?? split.query
    }

    func setDeferred(_ response: HTTPResponse) { deferred.withLock { $0 = response } }
    func takeDeferred() -> HTTPResponse? { deferred.withLock { $0.take() } }
}

/// A suspended `MHD_Connection*`, handed to the thread that resumes it.
///
/// A response body kept alive for libmicrohttpd, which sends from its bytes and frees it with
/// `releaseResponseBody`.
private final class ResponseBody {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

private let releaseResponseBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseBody>.fromOpaque(cls).release()
}

/// `@unchecked Sendable`: `MHD_resume_connection` may be called from any thread, once.
private struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

// The C callbacks capture nothing: context arrives through `cls` and `con_cls` (Swift 6.3.1
// crashes compiling a capturing `@convention(c)` closure).

private let accessCallback: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, slot in
    guard let cls, let connection, let url, let method, let uploadSize, let slot else { return .NO }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    return daemon.access(connection, url: url, method: method, upload: upload, uploadSize: uploadSize, slot: slot) ? .YES : .NO
}

private let completedCallback: MHD_RequestCompletedCallback = { cls, _, slot, code in
    guard let cls, let slot, let raw = slot.pointee else { return }
    slot.pointee = nil
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    daemon.completed(context, code: code)
}

private let acceptCallback: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return .NO }
    return Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue().admit(address) ? .YES : .NO
}

private let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, context, code in
    guard let cls, let context else { return }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    // MHD_CONNECTION_NOTIFY_STARTED (0) and MHD_CONNECTION_NOTIFY_CLOSED (1).
    switch code.rawValue {
    case 0: if let connection { daemon.connectionStarted(connection, context: context) }
    case 1: daemon.connectionClosed(context: context)
    default: break
    }
}

private let queryArgumentCallback: MHD_KeyValueIteratorN = { pairs, _, key, keySize, value, valueSize in
    guard let pairs, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
    pairs.assumingMemoryBound(to: [(String, String?)].self).pointee.append((name, text))
    return .YES
}

private extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

private let headerLinesCallback: MHD_KeyValueIteratorN = { found, _, key, keySize, value, valueSize in
    guard let found, let key else { return .YES }
    let wanted = found.assumingMemoryBound(to: (name: [UInt8], values: [String]).self)
    let name = UnsafeRawBufferPointer(start: key, count: keySize)
    guard name.count == wanted.pointee.name.count,
          zip(name, wanted.pointee.name).allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }) else { return .YES }
    wanted.pointee.values.append(value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? "")
    return .YES
}

private let headerSizeCallback: MHD_KeyValueIteratorN = { total, _, _, keySize, _, valueSize in
    total?.assumingMemoryBound(to: Int.self).pointee += keySize + valueSize + 4
    return .YES
}

/// libmicrohttpd notes every connection a client drops or the server cuts: one line per message
/// (by its format string) every 10 s, with the count.
private let logCallback: MHD_LogCallback = { context, format, arguments in
    guard let context, let format, let arguments else { return }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue()
    daemon.stats.libraryNote(format: String(cString: format)) {
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingCharacters(in: "\n")
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

/// Seconds on the monotonic clock.
public enum Monotonic {
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
