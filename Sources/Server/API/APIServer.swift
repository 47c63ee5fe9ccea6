import Foundation
import ExperimentDefinitions
import CopyGeneration
import HTTPTransport
import PaywallCopy
import Webhooks
import Synchronization

/// The HTTP API of SPEC §7: routes, authorization, error mapping, request logs and metrics.
///
/// Each endpoint lives in its own `APIServer+Name.swift`; this file holds what they share.
public final class APIServer: HTTPHandler {
    public struct Options: Sendable {
        public var keys: APIKeys
        /// The exact `Authorization` header RevenueCat sends; nil when not configured.
        public var revenueCatAuthorization: String?
        public var experimentsDirectory: String
        /// nil: ai_generated copy is always handed to the app as a recipe.
        public var copyGeneration: CopyGenerationOptions?
        /// nil: `POST /v1/webhooks/appstore` answers 404.
        public var appStore: AppStoreOptions?
        /// The time reports are generated at (`ABCTL_NOW`); nil: the time of the request.
        public var reportClock: Date?
        /// nil: `POST /v1/webhooks/stripe` answers 404.
        public var stripe: StripeOptions?
        /// nil: `POST /v1/webhooks/googleplay` answers 404.
        public var googlePlay: GooglePlayOptions?
        /// The safeguard schedule, stop polling and `--notify-url` (SPEC §5).
        public var safeguards: SafeguardService.Options = .init()

        public init(keys: APIKeys = .none, revenueCatAuthorization: String? = nil, experimentsDirectory: String,
                    copyGeneration: CopyGenerationOptions? = nil, appStore: AppStoreOptions? = nil, reportClock: Date? = nil,
                    stripe: StripeOptions? = nil, googlePlay: GooglePlayOptions? = nil, safeguards: SafeguardService.Options = .init()) {
            self.safeguards = safeguards
            self.stripe = stripe
            self.googlePlay = googlePlay
            self.reportClock = reportClock
            self.appStore = appStore
            self.keys = keys
            self.revenueCatAuthorization = revenueCatAuthorization
            self.experimentsDirectory = experimentsDirectory
            self.copyGeneration = copyGeneration
        }
    }

    public let options: Options
    public let metrics = Metrics()
    /// Connection counts, kept by the HTTP daemon and shown on /metrics.
    public let connections = ConnectionStats(log: Log.shared.write)
    public let snapshots: SnapshotHolder
    let backend: Backend
    /// Writes ai_generated lines for devices with no on-device model; nil without `--llm-url`.
    let copyGenerator: ServerCopyGenerator?
    private let draining = Atomic<Bool>(false)
    private let started = Monotonic.seconds()
    /// `last_reload_error` of /healthz: the time and problems of the last refused reload, until
    /// a later reload succeeds.
    private let lastReloadError = Mutex<JSONValue?>(nil)
    private let router = Router(APIServer.routes)
    /// Reads stops into the snapshot on every node; evaluates and notifies on the lease holder.
    public let safeguards: SafeguardService

    public init(options: Options, snapshot: ExperimentSnapshot, backend: Backend) {
        self.options = options
        self.snapshots = SnapshotHolder(snapshot)
        self.backend = backend
        self.safeguards = SafeguardService(options: options.safeguards, store: backend.store, snapshots: snapshots)
        self.copyGenerator = options.copyGeneration.map(backend.makeCopyGenerator)
    }

    /// The route table: method, pattern, scope, handler.
    static let routes: [Router.Route] = [
        .init("GET", "/healthz", scope: nil) { api, _, _ in api.health() },
        .init("GET", "/metrics", scope: nil) { api, _, _ in api.metricsText() },
        .init("GET", "/openapi.json", scope: nil) { _, _, _ in .response(.json(text: OpenAPIDocument.json)) },
        .init("POST", "/v1/assign", scope: .assign, allowsApp: true) { api, request, _ in try api.assign(request) },
        .init("POST", "/v1/events", scope: .ingest, allowsApp: true) { api, request, captures in
            try api.events(request, exposuresOnly: captures[APIServer.appScopeCapture] != nil)
        },
        .init("POST", "/v1/webhooks/revenuecat", scope: nil) { api, request, _ in try api.revenueCat(request) },
        .init("POST", "/v1/copy/check", scope: .assign) { api, request, _ in try api.copyCheck(request) },
        .init("GET", "/v1/experiments", scope: .admin) { api, _, _ in .response(.json(text: api.snapshots.snapshot.definitionsJSON())) },
        .init("GET", "/v1/experiments/{id}/report", scope: .admin) { api, request, captures in try api.report(id: captures["id"] ?? "", query: request.query) },
        .init("GET", "/v1/diagnostics/copy", scope: .admin) { api, _, _ in api.copyDiagnostics() },
        .init("POST", "/v1/webhooks/appstore", scope: nil) { api, request, _ in try api.appStore(request) },
        .init("POST", "/v1/webhooks/stripe", scope: nil) { api, request, _ in try api.stripe(request) },
        .init("POST", "/v1/webhooks/googleplay", scope: nil) { api, request, _ in try api.googlePlay(request) },
        .init("GET", "/api/features/{clientKey}", scope: nil) { api, request, captures in try api.features(request, clientKey: captures["clientKey"] ?? "") },
    ]

    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    // MARK: HTTPHandler

    public func handle(_ request: HTTPRequest) -> HandlerResult {
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            let shown = request.path.utf8.count > 200 && request.path.count > 200 ? String(request.path.prefix(200)) + "…" : request.path
            return HandlerResult(route: "unmatched", outcome: .response(ErrorResponses.response(
                for: APIError(.notFound, code: "not_found", "no endpoint at \(shown); see /openapi.json"), route: "unmatched")))
        case .wrongMethod(let pattern, let allowed):
            return HandlerResult(route: pattern, outcome: .response(ErrorResponses.response(
                for: APIError(.methodNotAllowed(allowed: allowed), code: "method_not_allowed",
                              "\(pattern) accepts \(allowed.joined(separator: ", ")), not \(request.method)"), route: pattern)))
        case .found(let route, let captures):
            do {
                var captures = captures
                if let scope = route.scope, try authorize(request, scope: scope, allowsApp: route.allowsApp) {
                    captures[Self.appScopeCapture] = "app"
                }
                return HandlerResult(route: route.pattern, outcome: try route.handler(self, request, captures))
            } catch {
                return HandlerResult(route: route.pattern, outcome: .response(ErrorResponses.response(for: error, route: route.pattern)))
            }
        }
    }

    public func payloadTooLarge(limit: Int) -> HTTPResponse {
        ErrorResponses.response(for: APIError(.payloadTooLarge, code: "body_too_large",
                                              "the request body is over the limit of \(limit) bytes (see --max-body)"), route: "")
    }

    public func headersTooLarge(limit: Int) -> HTTPResponse {
        ErrorResponses.response(for: APIError(.headersTooLarge, code: "headers_too_large",
                                              "the request line and headers are over the limit of \(limit) bytes"), route: "")
    }

    public func requestTimeout() -> HTTPResponse {
        ErrorResponses.response(for: APIError(.requestTimeout, code: "request_timeout",
                                              "the request line, headers or body did not arrive in time (see --header-timeout, --body-timeout); the connection is closed"),
                                route: "")
    }

    public func route(method: String, path: String) -> String {
        switch router.match(method: method, path: path) {
        case .found(let route, _): route.pattern
        case .wrongMethod(let pattern, _): pattern
        case .notFound: "unmatched"
        }
    }

    /// Clients choose methods freely; metrics label only these, and the rest as `other`.
    private static let knownMethods = ["POST", "GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]

    public func answered(route: String, method: String, status: Int, seconds: Double) {
        metrics.request(route: route, method: Self.knownMethods.contains(method) ? method : "other", status: status, seconds: seconds)
    }

    public func completed(_ summary: RequestSummary) {
        // One JSON line per request, written straight to bytes (same shape as `Log.write`). Lengths
        // are checked in bytes first: `String.count` walks every character.
        var line = ByteWriter(capacity: 256)
        line.append(literal: #"{"ts":""#)
        Log.appendTimestamp(to: &line)
        line.append(literal: summary.status >= 500 || summary.status == 0 ? #"","level":"warning","# : #"","level":"info","#)
        line.append(literal: #""msg":"request","method":"#)
        switch summary.method {
        case "POST": line.append(literal: #""POST""#)
        case "GET": line.append(literal: #""GET""#)
        default: JSONWriter.writeString(summary.method.utf8.count > 16 && summary.method.count > 16 ? String(summary.method.prefix(16)) : summary.method, to: &line)
        }
        line.append(literal: #","path":"#)
        let pathStart = line.count
        JSONWriter.writeString(summary.path.utf8.count > 256 && summary.path.count > 256 ? String(summary.path.prefix(256)) + "…" : summary.path, to: &line)
        let path = pathStart..<line.count
        line.append(literal: #","route":"#)
        // A literal route is its path: the same text again.
        if summary.route == summary.path { line.appendCopy(of: path) } else { JSONWriter.writeString(summary.route, to: &line) }
        line.append(literal: #","status":"#)
        JSONWriter.writeInteger(Int64(summary.status), to: &line)
        line.append(literal: #","duration_ms":"#)
        JSONWriter.writeNumber((summary.seconds * 1_000_000).rounded() / 1000, to: &line)
        line.append(literal: #","bytes_in":"#)
        JSONWriter.writeInteger(Int64(summary.bytesIn), to: &line)
        line.append(literal: #","bytes_out":"#)
        JSONWriter.writeInteger(Int64(summary.bytesOut), to: &line)
        if let termination = summary.termination {
            line.append(literal: #","terminated":"#)
            JSONWriter.writeString(termination, to: &line)
        }
        line.append(0x7D)
        line.withUnsafeBytes { Log.shared.buffered(line: $0) }
    }

    // MARK: Shared

    /// Marks a request made with an `app` key (and no scope of its own for the route) in the
    /// handler's captures; `$` never starts a path capture's name.
    static let appScopeCapture = "$app"

    /// With no keys configured every route is open (the server then listens on loopback only).
    /// True when the key may call the route only through its `app` scope.
    @discardableResult
    func authorize(_ request: HTTPRequest, scope: APIKeys.Scope, allowsApp: Bool = false) throws(APIError) -> Bool {
        guard !options.keys.isEmpty else { return false }
        guard let scopes = options.keys.scopes(authorization: request.authorization) else {
            throw APIError(.unauthorized, code: "unauthorized",
                           request.authorization == nil ? "missing API key; send 'Authorization: Bearer KEY'" : "unknown API key")
        }
        if scopes.contains(scope) || scopes.contains(.admin) { return false }
        guard allowsApp && scopes.contains(.app) else {
            throw APIError(.forbidden, code: "insufficient_scope", "this key lacks the '\(scope.rawValue)' scope")
        }
        return true
    }

    func health() -> HandlerOutcome {
        let snapshot = snapshots.snapshot
        let reloads = metrics.reloads
        let body: JSONValue = .object([
            ("status", .string(isDraining ? "draining" : "ok")),
            ("experiments", .number(Double(snapshot.catalog.experiments.count))),
            ("loaded_at", .string(RFC3339.format(snapshot.loadedAt))),
            ("reloads", .number(Double(reloads.succeeded))),
            ("uptime_seconds", .number((Monotonic.seconds() - started).rounded())),
            ("last_reload_error", lastReloadError.withLock { $0 } ?? .null),
        ])
        return .response(.json(body, status: isDraining ? 503 : 200))
    }

    func metricsText() -> HandlerOutcome {
        let snapshot = snapshots.snapshot
        let text = metrics.render(gauges: [
            ("abctl_experiments_loaded", "Experiments in the current snapshot.", Double(snapshot.catalog.experiments.count)),
            ("abctl_experiments_loaded_timestamp_seconds", "When the current snapshot was loaded.", snapshot.loadedAt.timeIntervalSince1970.rounded()),
            ("abctl_uptime_seconds", "Seconds since the server started.", (Monotonic.seconds() - started).rounded()),
        ])
        return .response(.text(text + connections.render() + safeguards.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
    }

    /// Rereads `--google-certs` (Google rotates its keys); on an error the old keys stay.
    private func reloadGoogleCertificates(_ play: GooglePlayOptions) {
        do {
            guard let data = FileManager.default.contents(atPath: play.certificatesPath) else {
                throw GooglePushVerifier.ConfigurationError(description: "cannot read \(play.certificatesPath)")
            }
            try play.verifier.reload(certificates: [UInt8](data))
            Log.shared.write(level: .info, "Google certificates reloaded", ["keys": .array(play.verifier.keyIDs.map { .string($0) })])
        } catch {
            Log.shared.write(level: .error, "Google certificates reload failed; keeping the keys already loaded",
                             ["file": .string(play.certificatesPath), "error": .string(String(describing: error))])
        }
    }

    /// Reads the folder again; on any error the current snapshot stays and the reason is logged.
    @discardableResult
    public func reload() -> Bool {
        if let play = options.googlePlay { reloadGoogleCertificates(play) }
        do {
            let loaded = try backend.makeSnapshot(directory: options.experimentsDirectory)
            // Counted before it is published: whoever sees the new experiments sees the reload counted.
            metrics.reload(succeeded: true)
            lastReloadError.withLock { $0 = nil }
            // The stops in force stay in force across a reload.
            let snapshot = snapshots.update { current in loaded.withStops(current.stops) }
            Log.shared.write(level: .info, "experiments reloaded", ["experiments": .number(Double(snapshot.catalog.experiments.count)),
                                                                    "directory": .string(options.experimentsDirectory)])
            return true
        } catch {
            metrics.reload(succeeded: false)
            var fields: [String: JSONValue] = ["directory": .string(options.experimentsDirectory)]
            let problems = Self.reloadProblems(error)
            if error is ExperimentLoader.LoadError {
                fields["problems"] = .array(problems.map { .string($0) })
            } else {
                fields["error"] = .string(String(describing: error))
            }
            lastReloadError.withLock {
                $0 = .object([("at", .string(RFC3339.format(Date()))), ("problems", .array(problems.map { .string($0) }))])
            }
            Log.shared.write(level: .error, "reload failed; keeping the experiments already loaded", fields)
            return false
        }
    }

    /// What refused a reload: each error of the folder as `file:line:column: error: message`
    /// (as `abctl validate` writes it), with its notes of checks skipped because a file could not
    /// be read, the first 20 and then how many more; or the one error that was not about the files.
    static func reloadProblems(_ error: any Error) -> [String] {
        guard let load = error as? ExperimentLoader.LoadError else { return [String(describing: error)] }
        let errors = load.diagnostics.filter { $0.severity != .warning }
        var problems = errors.prefix(20).map(\.line)
        if errors.count > 20 { problems.append("and \(errors.count - 20) more") }
        return problems
    }
}
