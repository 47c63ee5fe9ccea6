// client-bench: the cost of AbctlClient's hot paths (see bench/client.sh).
//
// Usage: client-bench --url URL [--calls N] [--events N] [--batch B] [--dir DIR]
// URL is a running `abctl serve`. Prints, each next to its reference from the same run, in
// alternating rounds: paywall(for:) answered from the device cache (the server unreachable)
// beside an actor call that does nothing, and the server's own answer over loopback; the event
// queue's events per second to disk, fsynced one at a time and B at a time, beside plain
// write+fsync of records of the same size.
import AbctlClient
import Foundation

struct Options {
    var url = ""
    var calls = 100_000
    var events = 2_000
    var batch = 100
    var dir = FileManager.default.temporaryDirectory.appendingPathComponent("client-bench-\(UUID().uuidString)").path

    static func parse() -> Options {
        var o = Options()
        var args = CommandLine.arguments.dropFirst()
        while let a = args.popFirst() {
            let value = args.popFirst() ?? ""
            switch a {
            case "--url": o.url = value
            case "--calls": o.calls = Int(value) ?? o.calls
            case "--events": o.events = Int(value) ?? o.events
            case "--batch": o.batch = Int(value) ?? o.batch
            case "--dir": o.dir = value
            default:
                FileHandle.standardError.write(Data("client-bench: unknown argument \(a)\n".utf8))
                exit(2)
            }
        }
        return o
    }
}

/// An actor call that does nothing: the floor under any `await client.…`.
actor Empty {
    var n = 0
    func touch() -> Int { n += 1; return n }
}

func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

func configuration(_ url: URL, _ dir: URL) -> ClientConfiguration {
    ClientConfiguration(serverURL: url, storageDirectory: dir,
                        defaultPaywall: ResolvedPaywall(offering: "chorus_plus", trialDays: 3, copy: .text("Hear every bird.", source: .static, fallbackReason: nil)),
                        retryAfter: .seconds(3600), queueCapacity: 10_000_000, sendsAutomatically: false)
}

let options = Options.parse()
guard let server = URL(string: options.url), !options.url.isEmpty else {
    FileHandle.standardError.write(Data("client-bench: --url of a running abctl serve is required\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: options.dir)
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let clock = ContinuousClock()
let query = PaywallQuery(userID: "qa-device-2", experiment: "chorus-paywall-copy", attributes: ["platform": .string("ios")],
                         variables: ["userName": "Robin"])

// The server's answer over loopback (this also fills the cache).
let online = try AbctlClient(configuration: configuration(server, root.appendingPathComponent("paywall")))
_ = await online.paywall(for: query)
let serverCalls = 200
var start = clock.now
for _ in 0..<serverCalls {
    let a = await online.paywall(for: query)
    precondition(a.source == .server, "the server did not answer: \(a.reason)")
}
let serverMicros = microseconds(clock.now - start) / Double(serverCalls)

// The same storage, the server unreachable: one failed call, then every answer from the cache.
let offline = try AbctlClient(configuration: configuration(URL(string: "http://127.0.0.1:1")!, root.appendingPathComponent("paywall")))
_ = await offline.paywall(for: query)
// Alternating rounds, so a change in the machine's load hits both sides alike.
var cacheRounds: [Double] = [], emptyRounds: [Double] = []
let empty = Empty()
for _ in 0..<3 {
    start = clock.now
    for _ in 0..<options.calls {
        let a = await offline.paywall(for: query)
        precondition(a.source == .cache)
    }
    cacheRounds.append(microseconds(clock.now - start) / Double(options.calls))
    start = clock.now
    for _ in 0..<options.calls { _ = await empty.touch() }
    emptyRounds.append(microseconds(clock.now - start) / Double(options.calls))
}
let best = cacheRounds.min()!, floor = emptyRounds.min()!
print(String(format: "paywall(for:) from the cache: %.2f µs/call (best of 3 x %d; goal < 50 µs) | empty actor call, alternating rounds: %.3f µs | server answer over loopback: %.0f µs",
             best, options.calls, floor, serverMicros))

// The event queue, fsynced.
let sample = ClientEvent(kind: .exposure, userID: "user-0001", experiment: "chorus-paywall-copy", variant: "ai", copySource: .onDevice,
                         copyText: "Your dog sets the pace and Chorus names every song you pass.")
let lineBytes = sample.json.serialized().utf8.count + 10
let queue = try AbctlClient(configuration: configuration(URL(string: "http://127.0.0.1:1")!, root.appendingPathComponent("queue-one")))
// Reference: records of the same size, written and fsynced by plain FileHandle calls on the same disk.
let rawURL = root.appendingPathComponent("raw.log")
_ = FileManager.default.createFile(atPath: rawURL.path, contents: nil)
let raw = try FileHandle(forWritingTo: rawURL)
let record = Data(repeating: 0x61, count: lineBytes)
var queueRounds: [Double] = [], rawRounds: [Double] = []
// fsync latency on a shared disk swings with the neighbours' I/O from one second to the next:
// many short alternating rounds, judged by their medians and by the ratio within each pair.
let rounds = 10
let perRound = max(1, options.events / rounds)
for _ in 0..<rounds {
    start = clock.now
    for _ in 0..<perRound {
        var e = sample
        e.id = EventID(UUID().uuidString.lowercased())
        _ = try await queue.log([e])
    }
    queueRounds.append(Double(perRound) / (microseconds(clock.now - start) / 1e6))
    start = clock.now
    for _ in 0..<perRound {
        try raw.write(contentsOf: record)
        try raw.synchronize()
    }
    rawRounds.append(Double(perRound) / (microseconds(clock.now - start) / 1e6))
}
try raw.close()
func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return (s[(s.count - 1) / 2] + s[s.count / 2]) / 2 }
let oneRate = median(queueRounds), rawRate = median(rawRounds)
let ratio = median(zip(queueRounds, rawRounds).map { $0 / $1 })

let batched = try AbctlClient(configuration: configuration(URL(string: "http://127.0.0.1:1")!, root.appendingPathComponent("queue-batch")))
let batchCount = max(1, options.events * 10 / options.batch)
start = clock.now
for _ in 0..<batchCount {
    let events = (0..<options.batch).map { _ in var e = sample; e.id = EventID(UUID().uuidString.lowercased()); return e }
    _ = try await batched.log(events)
}
let batchRate = Double(batchCount * options.batch) / (microseconds(clock.now - start) / 1e6)

print(String(format: "event queue to disk: %.0f events/s one fsync each (median of %d rounds), %.0f events/s %d per fsync (%d-byte records) | plain write+fsync of the same bytes, alternating rounds: %.0f/s; queue/plain per round pair, median: %.2f",
             oneRate, rounds, batchRate, options.batch, lineBytes, rawRate, ratio))
print("  rounds, queue/plain: " + zip(queueRounds, rawRounds).map { String(format: "%.0f/%.0f", $0, $1) }.joined(separator: " "))
