// handler-bench: the CPU one request costs inside abctl serve, without the network (see bench/handler.sh).
//
// Usage: handler-bench [--requests N] [--experiments DIR] [--route assign|events|notfound] [--country CC|none]
// Runs each request through what the daemon calls (route, handle, answered, completed) on one
// thread, against a real store in a temporary folder, and prints user and system CPU per request.
// bench/http.sh measures the whole server; this isolates abctl's own work from libmicrohttpd and TCP.
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Server
import SQLiteStore
#if canImport(Glibc)
import Glibc
#endif

var requests = 200_000
var experiments = "Experiments"
var routeName = "assign"
/// The assign request's `country` attribute (bench/http.sh's is US); `none` sends none.
var country = "US"
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--requests": requests = Int(args.popFirst() ?? "") ?? requests
    case "--experiments": experiments = args.popFirst() ?? experiments
    case "--route": routeName = args.popFirst() ?? routeName
    case "--country": country = args.popFirst() ?? country
    default: FileHandle.standardError.write(Data("handler-bench: unknown argument \(a)\n".utf8)); exit(2)
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handler-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

let server: Server
do {
    let store = try SQLiteEventStore(path: folder + "/bench.sqlite")
    server = try Server(configuration: .init(http: .init(), api: .init(experimentsDirectory: experiments), store: store))
} catch {
    FileHandle.standardError.write(Data("handler-bench: \(error)\n".utf8))
    exit(1)
}
let api = server.api

// A bandit draws with its recorded period, which the safeguard service records and reads
// into the snapshot: run it until every running bandit has one, then stop it, so the loop below
// draws as a serving node does and no background work is counted.
let bandits = api.snapshots.snapshot.catalog.experiments.filter { $0.isBandit && $0.status == .running }.map(\.id)
if !bandits.isEmpty {
    api.safeguards.start()
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, !bandits.allSatisfy({ id in api.snapshots.snapshot.periods.contains { $0.experiment == id } }) { usleep(20_000) }
    api.safeguards.stop()
    let read = Set(api.snapshots.snapshot.periods.map(\.experiment))
    FileHandle.standardError.write(Data("handler-bench: \(bandits.count) bandits, \(bandits.filter(read.contains).count) with periods in the snapshot\n".utf8))
}

/// The request bodies bench/http.sh's wrk scripts send.
func request(_ n: Int, route routeName: String, country: String) -> HTTPRequest {
    switch routeName {
    case "events":
        var lines: [String] = []
        for i in 1...100 {
            let id = "\(n)-\(i)"
            lines.append(i % 4 == 1
                ? #"{"event_id":"ev-\#(id)","type":"exposure","user_id":"u-\#(id)","experiment":"chorus-paywall-copy","variant":"ai","ts":"2026-12-01T10:00:00Z","copy_source":"on_device"}"#
                : #"{"event_id":"ev-\#(id)","type":"trial_started","user_id":"u-\#(id)","ts":"2026-12-01T10:01:00Z","product_id":"chorus.plus.annual"}"#)
        }
        return HTTPRequest(method: "POST", path: "/v1/events", body: Array(lines.joined(separator: "\n").utf8))
    case "notfound":
        return HTTPRequest(method: "POST", path: "/nope", body: Array("{}".utf8))
    default:
        let attribute = country == "none" ? "" : #""country":"\#(country)","#
        let body = #"{"user_id":"bench-0-\#(n)","attributes":{"platform":"ios",\#(attribute)"app_version":"2.3.0","new_user":true},"variables":{"userName":"Ana"},"signals":{"companion":"dog"}}"#
        return HTTPRequest(method: "POST", path: "/v1/assign", body: Array(body.utf8))
    }
}

func cpuSeconds() -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}

let count = routeName == "events" ? max(1, requests / 100) : requests
let prepared = (0..<count).map { request($0, route: routeName, country: country) }
var statuses: [Int: Int] = [:]
let before = cpuSeconds()
let started = Date()
for r in prepared {
    _ = api.route(method: r.method, path: r.path)   // as the daemon does once the headers are in
    let result = api.handle(r)
    let response: HTTPResponse
    switch result.outcome {
    case .response(let immediate):
        response = immediate
    case .deferred(let start):
        // Events: wait for the store's commit, as a suspended connection would.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: HTTPResponse?
        start { answer = $0; done.signal() }
        done.wait()
        response = answer!
    }
    api.answered(route: result.route, method: r.method, status: response.status, seconds: 0.001)
    api.completed(RequestSummary(method: r.method, path: r.path, route: result.route, status: response.status, seconds: 0.001,
                                 bytesIn: r.body.count, bytesOut: response.body.count))
    statuses[response.status, default: 0] += 1
}
let elapsed = Date().timeIntervalSince(started)
let after = cpuSeconds()
let user = (after.user - before.user) / Double(count) * 1e6
let system = (after.system - before.system) / Double(count) * 1e6
print(String(format: "handler-bench %@: %d requests in %.2f s; per request: user %.2f µs, system %.2f µs; statuses %@",
             routeName, count, elapsed, user, system, statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")))
