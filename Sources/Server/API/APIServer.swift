import Foundation
import ExperimentDefinitions
import CopyGeneration
import HTTPTransport
import PaywallCopy
import Webhooks
import Synchronization

/// The HTTP API (docs/API.md): routes, authorization, error mapping, request logs and metrics.
///
/// The routes are `APIRoutes`, each answered by a small handler in `Handlers/`; this type builds
/// them over their dependencies, dispatches requests, and reloads the experiments.
public final class APIServer: HTTPHandler {
    public struct Options: Sendable {
        public var keys: APIKeys
        /// Where `keys` came from, when a file (`--keys-file`): read again on SIGHUP.
        public var keysFile: String?
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
        /// The safeguard schedule, stop polling and `--notify-url`.
        public var safeguards: SafeguardService.Options = .init()
        /// Sessions, the cookie and the secret of the console.
        public var console = ConsoleOptions()

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
    /// The API keys in force: `options.keys`, then the keys file as last reloaded.
    public let keys: KeyRing
    public let metrics = Metrics()
    /// Connection counts, kept by the HTTP daemon and shown on /metrics.
    public let connections: ConnectionStats
    /// Where the server's log lines go; handed to every part that writes one.
    public let log: Log
    public let snapshots: SnapshotHolder
    let backend: Backend
    public let status = ServerStatus()
    /// Reads stops into the snapshot on every node; evaluates and notifies on the lease holder.
    public let safeguards: SafeguardService
    private let router: Router
    /// The metrics and the access log line of every request, around the router.
    private let observer: RequestObserver
    public let requestHeaderNames: [String]
    public var everyLineHeaderNames: [String] { ConsoleRoutes.everyLineHeaderNames }
    /// The threads reports are computed on, apart from the ones answering requests: a report at
    /// a million users takes seconds, so at most two at once and none waiting.
    let reports = LowPriorityThreads(name: "abctl.report", width: 2, waiting: 0, retryAfterSeconds: 5)
    /// The threads the console's pages are read and written on: short work, so a queue.
    let consolePages = LowPriorityThreads(name: "abctl.console", width: 2, waiting: 64, retryAfterSeconds: 2)
    /// The console's reports: the stored ones, and those computed for a page.
    let consoleReports: ConsoleReports
    /// Keeps the stored reports fresh while this node holds the lease.
    let consoleRefresher: ConsoleRefresher

    public init(options: Options, snapshot: ExperimentSnapshot, backend: Backend, log: Log) {
        self.options = options
        let keys = KeyRing(options.keys)
        self.keys = keys
        self.log = log
        connections = ConnectionStats(log: log.write)
        self.snapshots = SnapshotHolder(snapshot)
        self.backend = backend
        self.safeguards = SafeguardService(options: options.safeguards, store: backend.store, snapshots: snapshots, log: log)
        consoleReports = ConsoleReports(store: backend.store, clock: options.reportClock, onRequest: reports, log: log)
        let safeguards = self.safeguards
        consoleRefresher = ConsoleRefresher(store: backend.store, snapshots: snapshots, reports: consoleReports,
                                            interval: options.console.refreshSeconds, log: log,
                                            isLeader: { safeguards.leaseHeld.load(ordering: .relaxed) == 1 })
        let dependencies = HandlerDependencies(
            options: options, keys: keys, snapshots: snapshots, store: backend.store, exposures: backend.exposures, metrics: metrics,
            connections: connections, status: status, safeguards: safeguards,
            copyGenerator: options.copyGeneration.map(backend.makeCopyGenerator), log: log, reports: reports,
            console: ConsoleGate(keys: keys, store: backend.store, options: options.console),
            consoleReports: consoleReports, consoleRefresher: consoleRefresher, consolePages: consolePages,
            consoleHistories: ConsoleFileHistories(refreshSeconds: options.console.refreshSeconds, log: log))
        router = Router((Self.routes + ConsoleRoutes.all).map { spec in Router.Route(spec, responder: Self.guarded(spec.make(dependencies), spec.access, keys: keys)) })
        observer = RequestObserver(metrics: metrics, log: log)
        requestHeaderNames = Self.headerNames(Self.routes) + ConsoleRoutes.headerNames
    }

    /// The route table (`APIRoutes`): the one description of each route.
    public static var routes: [RouteSpec] { APIRoutes.all }

    /// The handler behind the access middleware its route declares.
    static func guarded(_ handler: any Responder, _ access: RouteAccess, keys: KeyRing) -> any Responder {
        switch access {
        case .open, .vendor: handler
        case .scoped(let scope, let allowsApp, let allowsReport):
            Authorized(keys: keys, scope: scope, allowsApp: allowsApp, allowsReport: allowsReport, next: handler)
        }
    }

    /// `Authorization` and every header a route declares as a parameter: the transport copies only these.
    static func headerNames(_ routes: [RouteSpec]) -> [String] {
        var names = ["Authorization"]
        for route in routes {
            for parameter in route.document.parameters where parameter.location == .header && !names.contains(parameter.name) {
                names.append(parameter.name)
            }
        }
        return names
    }

    public var isDraining: Bool { status.isDraining }

    public func beginDraining() { status.beginDraining() }

    // MARK: HTTPHandler

    public func handle(_ request: HTTPRequest) -> HandlerResult {
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            let shown = request.path.utf8.count > 200 && request.path.count > 200 ? String(request.path.prefix(200)) + "…" : request.path
            return HandlerResult(route: "unmatched", outcome: .response(ErrorResponses.response(
                for: APIError(.notFound, code: "not_found", "no endpoint at \(shown); see /openapi.json"), route: "unmatched", log: log)))
        case .wrongMethod(let pattern, let allowed):
            return HandlerResult(route: pattern, outcome: .response(ErrorResponses.response(
                for: APIError(.methodNotAllowed(allowed: allowed), code: "method_not_allowed",
                              "\(pattern) accepts \(allowed.joined(separator: ", ")), not \(request.method)"), route: pattern, log: log)))
        case .found(let route, let captures):
            do {
                return HandlerResult(route: route.pattern, outcome: try route.responder.respond(to: APIRequest(request, captures: captures)))
            } catch {
                return HandlerResult(route: route.pattern, outcome: .response(ErrorResponses.response(for: error, route: route.pattern, log: log)))
            }
        }
    }

    public func payloadTooLarge(limit: Int) -> HTTPResponse {
        ErrorResponses.response(for: APIError(.payloadTooLarge, code: "body_too_large",
                                              "the request body is over the limit of \(limit) bytes (see --max-body)"), route: "", log: log)
    }

    public func headersTooLarge(limit: Int) -> HTTPResponse {
        ErrorResponses.response(for: APIError(.headersTooLarge, code: "headers_too_large",
                                              "the request line and headers are over the limit of \(limit) bytes"), route: "", log: log)
    }

    public func requestTimeout() -> HTTPResponse {
        ErrorResponses.response(for: APIError(.requestTimeout, code: "request_timeout",
                                              "the request line, headers or body did not arrive in time (see --header-timeout, --body-timeout); the connection is closed"),
                                route: "", log: log)
    }

    public func route(method: String, path: String) -> String {
        switch router.match(method: method, path: path) {
        case .found(let route, _): route.pattern
        case .wrongMethod(let pattern, _): pattern
        case .notFound: "unmatched"
        }
    }

    public func answered(route: String, method: String, status: Int, seconds: Double) {
        observer.answered(route: route, method: method, status: status, seconds: seconds)
    }

    public func completed(_ summary: RequestSummary) {
        observer.completed(summary)
    }

    /// Rereads `--google-certs` (Google rotates its keys); on an error the old keys stay.
    private func reloadGoogleCertificates(_ play: GooglePlayOptions) {
        do {
            guard let data = FileManager.default.contents(atPath: play.certificatesPath) else {
                throw GooglePushVerifier.ConfigurationError(description: "cannot read \(play.certificatesPath)")
            }
            try play.verifier.reload(certificates: [UInt8](data))
            log.write(level: .info, "Google certificates reloaded", ["keys": .array(play.verifier.keyIDs.map { .string($0) })])
        } catch {
            log.write(level: .error, "Google certificates reload failed; keeping the keys already loaded",
                             ["file": .string(play.certificatesPath), "error": .string(String(describing: error))])
        }
    }

    /// Rereads `--keys-file`: a key removed or stripped of a scope stops working, its console
    /// sessions included. On an error the keys in force stay.
    private func reloadKeys(file: String) {
        do {
            let keys = try APIKeys.read(file: file)
            try self.keys.replace(with: keys)
            log.write(level: .info, "API keys reloaded", ["file": .string(file), "keys": .number(Double(keys.count))])
        } catch {
            log.write(level: .error, "API keys reload failed; keeping the keys in force",
                      ["file": .string(file), "error": .string(error.description)])
        }
    }

    /// Reads the keys file and the folder again; on any error the current keys or snapshot stay
    /// and the reason is logged.
    @discardableResult
    public func reload() -> Bool {
        if let file = options.keysFile { reloadKeys(file: file) }
        if let play = options.googlePlay { reloadGoogleCertificates(play) }
        do {
            let loaded = try backend.makeSnapshot(directory: options.experimentsDirectory)
            // Counted before it is published: whoever sees the new experiments sees the reload counted.
            metrics.reload(succeeded: true)
            status.setLastReloadError(nil)
            // The stops in force stay in force across a reload.
            let snapshot = snapshots.update { current in loaded.withStops(current.stops).withPeriods(current.periods) }
            log.write(level: .info, "experiments reloaded", ["experiments": .number(Double(snapshot.catalog.experiments.count)),
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
            status.setLastReloadError(.object([("at", .string(RFC3339.format(Date()))), ("problems", .array(problems.map { .string($0) }))]))
            log.write(level: .error, "reload failed; keeping the experiments already loaded", fields)
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
