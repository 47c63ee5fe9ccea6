// client-probe: an app process for AbctlClientTests to kill and restart (the build's ClientProbe).
//
//   ClientProbe enqueue --dir DIR --url URL --user ID --count N
//       logs N trial_started events one at a time, printing "queued EVENT_ID" once each is on
//       disk, then "done", then waits to be killed (sending in the background to URL meanwhile).
//   ClientProbe flush --dir DIR --url URL
//       sends everything queued in DIR and prints the client's diagnostics as one JSON line;
//       exit 0 when the queue emptied, 1 otherwise.
//   ClientProbe paywall --dir DIR --url URL --user ID --calls N --deadline-ms MS --retry-after-ms MS
//       asks for the chorus-paywall-copy paywall N times in a row and prints one JSON line per
//       answer: source, reason, variant and the milliseconds it took. Timed here, in a process
//       of its own, because a test process's shared thread pool may be held by other tests.
import AbctlClient
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("client-probe: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else { fail("usage: ClientProbe enqueue|flush --dir DIR --url URL [--user ID --count N]") }
let mode = arguments.removeFirst()
var parsed: [String: String] = [:]
while arguments.count >= 2, arguments[0].hasPrefix("--") {
    parsed[String(arguments[0].dropFirst(2))] = arguments[1]
    arguments.removeFirst(2)
}
let options = parsed
guard arguments.isEmpty else { fail("unexpected argument \(arguments[0])") }
guard let dir = options["dir"], let url = options["url"].flatMap(URL.init(string:)) else { fail("--dir and --url are required") }

let configuration = ClientConfiguration(
    serverURL: url, storageDirectory: URL(fileURLWithPath: dir),
    defaultPaywall: ResolvedPaywall(offering: "chorus_plus", trialDays: 3, copy: .text("Hear every bird on every walk.", source: .static, fallbackReason: nil)),
    assignDeadline: .milliseconds(options["deadline-ms"].flatMap(Int.init) ?? 800),
    retryAfter: .milliseconds(options["retry-after-ms"].flatMap(Int.init) ?? 10_000),
    initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(200), sendTimeout: .seconds(5), sendsAutomatically: mode == "enqueue")

func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

do {
    let client = try AbctlClient(configuration: configuration)
    switch mode {
    case "enqueue":
        guard let user = options["user"], let count = options["count"].flatMap(Int.init) else { fail("enqueue needs --user and --count") }
        for i in 0..<count {
            let event = ClientEvent(kind: .trialStarted, userID: UserID(user), productID: "chorus.plus.annual.\(i)")
            guard try await client.log([event]) == 1 else { fail("the queue was full at event \(i)") }
            line("queued \(event.id)")
        }
        line("done")
        while true { try await Task.sleep(for: .seconds(60)) }
    case "flush":
        let emptied = await client.flush()
        line(await client.diagnostics().json.serialized())
        exit(emptied ? 0 : 1)
    case "paywall":
        guard let user = options["user"], let calls = options["calls"].flatMap(Int.init) else { fail("paywall needs --user and --calls") }
        let query = PaywallQuery(userID: UserID(user), experiment: "chorus-paywall-copy", attributes: ["platform": .string("ios")])
        let clock = ContinuousClock()
        for _ in 0..<calls {
            let start = clock.now
            let answer = await client.paywall(for: query)
            let elapsed = clock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            line(JSONValue.object([
                ("source", .string(answer.source.rawValue)), ("reason", .string(answer.reason.code.rawValue)),
                ("variant", answer.variant.map(JSONValue.string) ?? .null), ("elapsed_ms", .number(ms.rounded())),
            ]).serialized())
        }
    default:
        fail("unknown mode \(mode)")
    }
} catch {
    fail("\(error)")
}
