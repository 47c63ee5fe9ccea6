import Events
import Foundation
import HTTPTransport
import Server
import SQLiteStore
import TestSupport

/// The API of `abctl serve` without a process: a temporary folder holding a copy of the shipped
/// experiments and a fresh SQLite store (or a store the test opened), a `Server` built as
/// `abctl serve` builds it, and requests handed straight to `APIServer.handle(_:)`.
///
/// What it cannot show stays in EndToEndTests: the transport (keep-alive, limits, timeouts,
/// slow clients), signals, kills, the request log and the binary's own flags.
final class InProcessServer: Sendable {
    let folder: TemporaryFolder
    let store: any EventStore
    let server: Server
    var api: APIServer { server.api }
    var experimentsPath: String { folder.path + "/Experiments" }
    /// The SQLite file, when the harness opened the store.
    let databasePath: String

    /// `options` adjusts what `abctl serve`'s flags and environment would set (keys, webhook
    /// secrets, the report clock); `experiments` may change the copied folder before it is read;
    /// `store` replaces the fresh SQLite file (e.g. a PostgreSQL database).
    init(options: (inout APIServer.Options) throws -> Void = { _ in },
         experiments: ((String) throws -> Void)? = nil,
         store: (any EventStore)? = nil) throws {
        folder = TemporaryFolder(prefix: "abctl-inprocess")
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        try experiments?(folder.path + "/Experiments")
        databasePath = folder.path + "/events.sqlite"
        if let store { self.store = store } else { self.store = try SQLiteEventStore(path: databasePath) }
        var apiOptions = APIServer.Options(experimentsDirectory: folder.path + "/Experiments")
        try options(&apiOptions)
        server = try Server(configuration: .init(http: .init(), api: apiOptions, store: self.store))
    }

    deinit { store.close() }

    /// The one place a test's request becomes an `HTTPRequest`: headers are name/value pairs as
    /// they arrive on the wire, and only this function knows how `HTTPRequest` holds them.
    static func makeRequest(method: String, path: String, query: String?, headers: [(String, String)], body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, path: path, query: query, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
    }

    /// One request through the API as the daemon runs it: routed, handled, a `.deferred` answer
    /// awaited (the store's commit), and counted on /metrics. `target` may carry `?query`.
    func request(_ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil) async -> APIReply {
        await request(method, target, headerPairs: headers.map { ($0.key, $0.value) }, body: body.map { Array($0.utf8) } ?? [])
    }

    /// `peer` is the client's address as the daemon gives it (nil: unknown).
    func request(_ method: String, _ target: String, headerPairs: [(String, String)], body: [UInt8], peer: String? = nil) async -> APIReply {
        let question = target.firstIndex(of: "?")
        let path = question.map { String(target[..<$0]) } ?? target
        let query = question.map { String(target[target.index(after: $0)...]) }
        var asked = Self.makeRequest(method: method, path: path, query: query, headers: headerPairs, body: body)
        asked.peer = peer
        let request = asked
        // On a thread of its own, as the daemon's threads call it: a handler may block (a store's
        // lookup, a model within its deadline), and the test pool's few threads must not. The
        // duration is taken there too, from the call to the answer, without the wait for the pool.
        let api = self.api
        let (result, response, elapsed): (HandlerResult, HTTPResponse, Duration) = await withCheckedContinuation { continuation in
            Thread {
                let started = ContinuousClock.now
                let result = api.handle(request)
                switch result.outcome {
                case .response(let now):
                    continuation.resume(returning: (result, now, ContinuousClock.now - started))
                case .deferred(let start):
                    start { continuation.resume(returning: (result, $0, ContinuousClock.now - started)) }
                }
            }.start()
        }
        api.answered(route: result.route, method: method, status: response.status,
                     seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        var headers = ["content-type": response.contentType]
        for (name, value) in response.headers { headers[name.lowercased()] = value }
        return APIReply(status: response.status, headers: headers, body: response.body, duration: elapsed,
                        setCookies: response.headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1))
    }

    /// Rows of a query on the SQLite store, through Debian's sqlite3 (tab-separated), as
    /// `ServeProcess.query` reads a served database.
    func query(_ sql: String) async throws -> [[String]] {
        let out = try await ChildProcess.run("/usr/bin/sqlite3", ["-separator", "\t", databasePath, sql])
        guard out.status == 0 else { throw QueryFailed(description: "sqlite3 failed on: \(sql): \(out.stderr)") }
        return out.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    struct QueryFailed: Error, CustomStringConvertible { var description: String }
}

/// An answer of the in-process API, read as EndToEndTests read one off the socket.
struct APIReply: Sendable {
    var status: Int
    /// Header names lowercased; `content-type` always present.
    var headers: [String: String]
    var body: [UInt8]
    /// From handing the request to the API until its answer was ready (a `.deferred` one included).
    var duration: Duration
    /// Every `Set-Cookie` of the answer, in order (`headers` keeps only the last).
    var setCookies: [String] = []

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    var error: [String: Any]? { json?["error"] as? [String: Any] }
    var errorCode: String? { error?["code"] as? String }
}
