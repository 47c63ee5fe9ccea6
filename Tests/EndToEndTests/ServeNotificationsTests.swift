import Foundation
import Synchronization
import Testing
import TestSupport

/// Notifications from `abctl serve` (docs/Notifications.md) against a receiver on 127.0.0.1 that fails the
/// first tries of each notification: every expected one arrives, and none arrives again once a
/// receiver's 2xx was recorded, across a SIGKILL of the server between tries and across two nodes
/// on one PostgreSQL. The data is `SafeguardsCommandTests`' (a harmful treatment, evaluated on
/// 3 December); the guarded experiment ended on 2 December and its last exposure was on
/// 1 December, so `safeguard_stop`, `past_end` and `no_data` are all due.
@Suite(.timeLimit(.minutes(4))) struct ServeNotificationsTests {
    static let now = ServeSafeguardsTests.now

    static func experiments(_ folder: String) throws {
        let text = SafeguardsCommandTests.experiment(checkMinutes: 60)
            .replacingOccurrences(of: #""start": "2026-12-01T00:00:00Z","#, with: #""start": "2026-12-01T00:00:00Z", "end": "2026-12-02T00:00:00Z","#)
        try text.write(toFile: folder + "/e2e.json", atomically: true, encoding: .utf8)
    }

    /// A receiver that fails every try while `healthy` is false, and then the first `failures`
    /// tries of each notification; it remembers what it answered to whom.
    final class Receiver: Sendable {
        struct Answered: Sendable {
            var id: String
            var type: String
            var experiment: String
            var status: Int
            var signature: String?
            var body: [String: String]
        }
        let server: FakeChatServer
        let box: Box

        init(failures: Int) throws {
            let box = Box()
            server = try FakeChatServer { request in
                let json = request.json ?? [:]
                let id = json["id"] as? String ?? request.headers["idempotency-key"] ?? "?"
                let status = box.answer(id: id, failures: failures)
                box.record(Answered(id: id, type: json["type"] as? String ?? "?", experiment: json["experiment"] as? String ?? "?", status: status,
                                    signature: request.headers["abctl-signature"], body: json.mapValues { "\($0)" }))
                return status == 200 ? .json(200, "{}") : .status(status)
            }
            self.box = box
        }

        /// The receiver's state, shared with its answering thread.
        final class Box: Sendable {
            let healthy = Atomic<Bool>(false)
            let log = Mutex<[Answered]>([])

            func answer(id: String, failures: Int) -> Int {
                guard healthy.load(ordering: .relaxed) else { return 503 }
                let tries = log.withLock { $0.filter { $0.id == id && $0.status != 503 }.count }
                return tries < failures ? 500 : 200
            }

            func record(_ a: Answered) { log.withLock { $0.append(a) } }
        }

        var url: String { server.url + "/hooks/abctl" }
        var log: [Answered] { box.log.withLock { $0 } }
        func heal() { box.healthy.store(true, ordering: .relaxed) }

        /// Each notification answered 2xx exactly once, and never asked again after it.
        func deliveredOnce() -> (ok: Bool, detail: String) {
            let log = self.log
            var problems: [String] = []
            for id in Set(log.map(\.id)) {
                let tries = log.filter { $0.id == id }
                let acknowledged = tries.indices.filter { tries[$0].status == 200 }
                if acknowledged.count != 1 || acknowledged.first != tries.count - 1 {
                    problems.append("\(id) (\(tries.first?.type ?? "")): \(tries.map(\.status))")
                }
            }
            return (problems.isEmpty, problems.joined(separator: "; "))
        }

        func types(experiment: String) -> Set<String> { Set(log.filter { $0.experiment == experiment && $0.status == 200 }.map(\.type)) }
    }

    static let expected: Set<String> = ["safeguard_stop", "past_end", "no_data"]

    @Test func everyNotificationArrivesOnceAcrossAKillBetweenTries() async throws {
        let receiver = try Receiver(failures: 2)
        let folder = TemporaryFolder()
        let db = folder.path + "/events.sqlite"
        try await ServeSafeguardsTests.ingest(db: db)
        let arguments = ["--notify-url", receiver.url, "--public-url", "https://abctl.example.com/"]
        let environment = Self.now.merging(["ABCTL_NOTIFY_SECRET": "whsec_e2e"]) { $1 }
        let first = try await ServeProcess.start(arguments: arguments, environment: environment, database: db, experiments: Self.experiments)
        // Every try fails; the server dies between tries.
        #expect(await eventually(within: .seconds(30)) { receiver.log.count >= 3 })
        await first.stop()
        let beforeKill = receiver.log
        #expect(beforeKill.allSatisfy { $0.status == 503 })

        receiver.heal()
        let second = try await ServeProcess.start(arguments: arguments, environment: environment, database: db, experiments: Self.experiments)
        #expect(await eventually(within: .seconds(60)) { receiver.types(experiment: "e2e").isSuperset(of: Self.expected) }, "\(receiver.log.map { ($0.type, $0.status) })")
        // What was recorded before the kill is sent after it: nothing tried before is lost. A try the
        // kill cut short left its claim, which runs out 30 s after it was taken.
        #expect(try await eventually(within: .seconds(60)) { try await ServeSafeguardsTests.metric(second, "abctl_notifications_pending") == 0 })
        let delivered = Set(receiver.log.filter { $0.status == 200 }.map(\.id))
        let (once, detail) = receiver.deliveredOnce()
        #expect(once, "\(detail)")
        #expect(Set(beforeKill.map(\.id)).isSubset(of: delivered), "every notification tried before the kill was delivered after it")

        // The body: the contract's keys, the link under --public-url, the signature.
        let stop = try #require(receiver.log.last { $0.type == "safeguard_stop" && $0.status == 200 })
        #expect(Set(stop.body.keys) == ["id", "type", "experiment", "at", "text", "url", "details"])
        #expect(stop.body["url"] == "https://abctl.example.com/experiments/e2e")
        #expect(stop.body["text"]?.contains("Safeguard stopped arm 'treatment' of e2e") == true)
        #expect(stop.signature?.hasPrefix("t=") == true && stop.signature?.contains(",v1=") == true)
        await second.stop()

        // Acknowledged once: another server has nothing to send but what is new (a reset).
        let count = receiver.log.count
        let third = try await ServeProcess.start(arguments: arguments, environment: environment, database: db, experiments: Self.experiments)
        #expect(try await eventually(within: .seconds(10)) { try await ServeSafeguardsTests.metric(third, "abctl_safeguard_lease_held") == 1 })
        try await Task.sleep(for: .seconds(4))
        #expect(receiver.log.count == count, "\(receiver.log.suffix(from: count).map { ($0.type, $0.status) })")
        let reset = try await Abctl.run(["safeguards", "reset", "e2e", "treatment", "--by", "ana", "--db", db])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(await eventually(within: .seconds(30)) { receiver.types(experiment: "e2e").contains("safeguard_reset") })
        let lifted = try #require(receiver.log.last { $0.type == "safeguard_reset" })
        #expect(lifted.body["text"]?.contains("Safeguard stop lifted: arm 'treatment' of e2e") == true)
        #expect(receiver.deliveredOnce().ok, "\(receiver.deliveredOnce().detail)")
        await third.stop()
    }

    @Test func twoNodesOnOnePostgreSQLSendEachOnceThroughALeaderKill() async throws {
        let receiver = try Receiver(failures: 2)
        receiver.heal()
        let url = try await onOwnThread { try PostgresCluster.shared().createDatabase() }
        try await ServeSafeguardsTests.ingest(db: url)
        let arguments = ["--notify-url", receiver.url]
        var nodes: [ServeProcess] = []
        for _ in 0..<2 {
            nodes.append(try await ServeProcess.start(arguments: arguments, environment: Self.now, database: url, experiments: Self.experiments))
        }
        #expect(try await eventually(within: .seconds(15)) {
            var held: [Double] = []
            for node in nodes { held.append(try await ServeSafeguardsTests.metric(node, "abctl_safeguard_lease_held") ?? -1) }
            return held.sorted() == [0, 1]
        })
        var leader = nodes[0], survivor = nodes[1]
        if try await ServeSafeguardsTests.metric(leader, "abctl_safeguard_lease_held") != 1 { swap(&leader, &survivor) }
        // The leader dies once the first tries have failed; the other node takes the lease and sends the rest.
        #expect(await eventually(within: .seconds(30)) { receiver.log.count >= 2 })
        // One sender at a time: the node without the lease has recorded and tried nothing.
        #expect(try await ServeSafeguardsTests.metric(survivor, "abctl_notification_tries_failed_total") == 0)
        #expect(try await ServeSafeguardsTests.metric(survivor, "abctl_notifications_recorded_total") == 0)
        await leader.stop()
        #expect(try await eventually(within: .seconds(20)) { try await ServeSafeguardsTests.metric(survivor, "abctl_safeguard_lease_held") == 1 })
        #expect(await eventually(within: .seconds(90)) { receiver.types(experiment: "e2e").isSuperset(of: Self.expected) }, "\(receiver.log.map { ($0.type, $0.status) })")
        #expect(try await eventually(within: .seconds(60)) { try await ServeSafeguardsTests.metric(survivor, "abctl_notifications_pending") == 0 })
        let (once, detail) = receiver.deliveredOnce()
        #expect(once, "\(detail)")
        // Every 2xx went to the survivor: the leader died before any try could succeed.
        #expect(try await ServeSafeguardsTests.metric(survivor, "abctl_notifications_delivered_total") == Double(receiver.log.filter { $0.status == 200 }.count))
        #expect(try await ServeSafeguardsTests.metric(survivor, "abctl_notifications_failed") == 0)
        await survivor.stop()
    }

    /// A receiver that never answers in time costs the sending thread 10 s a try and nothing
    /// else: `/v1/assign` answers as fast meanwhile, and the try is cut and made again.
    @Test func aReceiverThatHangsHoldsNoRequestThread() async throws {
        let receiver = try FakeChatServer([], otherwise: .delayed(milliseconds: 30_000, .json(200, "{}")))
        let folder = TemporaryFolder()
        let db = folder.path + "/events.sqlite"
        try await ServeSafeguardsTests.ingest(db: db)
        let node = try await ServeProcess.start(arguments: ["--notify-url", receiver.url, "--threads", "2"], environment: Self.now, database: db,
                                                experiments: Self.experiments)
        #expect(await eventually(within: .seconds(20)) { receiver.requests.count >= 1 })
        var slowest = Duration.zero
        for n in 0..<40 {
            let started = ContinuousClock.now
            let reply = try await node.request("POST", "/v1/assign", body: #"{"user_id":"hang-\#(n)","attributes":{},"experiments":["e2e"]}"#)
            slowest = max(slowest, ContinuousClock.now - started)
            #expect(reply.status == 200)
        }
        // A request thread held by the hanging try would wait out its 10 s limit; half of that leaves
        // room for a loaded machine without hiding a held thread.
        #expect(slowest < .seconds(5), "slowest assign while the receiver hangs: \(slowest)")
        // Cut at 10 s, tried again: a second request arrives while the first still hangs.
        let first = ContinuousClock.now
        #expect(await eventually(within: .seconds(25)) { receiver.requests.count >= 2 })
        #expect(ContinuousClock.now - first < .seconds(25))
        #expect(await eventually(within: .seconds(5)) { node.logLines.contains { ($0["msg"] as? String) == "notification failed; retrying" && ($0["error"] as? String)?.contains("no answer within 10 s") == true } })
        await node.stop()
    }

    /// A 404 ends a notification as failed: counted on `/metrics` and listed by `abctl safeguards
    /// check`. A `slack+` URL gets `{"text"}` alone, with the link.
    @Test func aRefusedNotificationIsShownAsFailedAndAChatGetsTextOnly() async throws {
        let refusing = try FakeChatServer([], otherwise: .status(404))
        let chat = try FakeChatServer([], otherwise: .json(200, "ok"))
        let folder = TemporaryFolder()
        let db = folder.path + "/events.sqlite"
        try await ServeSafeguardsTests.ingest(db: db)
        let chatURL = "slack+" + chat.url + "/services/T/B/X"
        let node = try await ServeProcess.start(arguments: ["--notify-url", refusing.url, "--public-url", "https://abctl.example.com"],
                                                environment: Self.now.merging(["ABCTL_NOTIFY_URLS": chatURL]) { $1 }, database: db,
                                                experiments: Self.experiments)
        // --notify-url on the command line wins over ABCTL_NOTIFY_URLS, as for every option: only the refusing receiver.
        #expect(await eventually(within: .seconds(20)) { refusing.requests.count >= 3 })
        #expect(try await eventually(within: .seconds(10)) { try await ServeSafeguardsTests.metric(node, "abctl_notifications_failed") ?? 0 >= 3 })
        try await Task.sleep(for: .seconds(2))
        let ids = refusing.requests.compactMap { $0.json?["id"] as? String }
        #expect(ids.count == Set(ids).count, "a 404 is not retried: \(ids)")
        #expect(chat.requests.isEmpty)
        await node.stop()

        let check = try await Abctl.run(["safeguards", "check", "--db", db, "--experiments", node.experimentsPath], environment: Self.now)
        #expect(check.stdout.contains("notifications failed:") && check.stdout.contains("e2e past_end at 2026-12-02T00:00:00Z, 1 try: answered 404"),
                "\(check.stdout)")
        let json = try await Abctl.run(["safeguards", "check", "--format", "json", "--db", db, "--experiments", node.experimentsPath], environment: Self.now)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let failed = try #require(body["failed_notifications"] as? [[String: Any]])
        #expect(failed.count == ids.count && failed.allSatisfy { $0["error"] as? String == "answered 404" && $0["attempts"] as? Int == 1 })

        // The chat target alone (from the environment): {"text"} with the link, nothing else.
        let chatNode = try await ServeProcess.start(environment: Self.now.merging(["ABCTL_NOTIFY_URLS": chatURL]) { $1 }, database: db,
                                                    experiments: Self.experiments)
        #expect(await eventually(within: .seconds(20)) { chat.requests.contains { ($0.json?["text"] as? String)?.contains("past its end") == true } })
        let posted = try #require(chat.requests.first { ($0.json?["text"] as? String)?.contains("past its end") == true })
        #expect(posted.path == "/services/T/B/X" && posted.json?.keys.sorted() == ["text"])
        #expect((posted.json?["text"] as? String)?.hasPrefix("e2e is still running past its end") == true)
        await chatNode.stop()
    }

    @Test func aNotifyURLThatIsNotHTTPIsRefusedAtStart() async throws {
        let folder = TemporaryFolder()
        for bad in ["ftp://127.0.0.1/x", "127.0.0.1:9/hook"] {
            let run = try await Abctl.run(["serve", "--port", "0", "--db", folder.path + "/e.sqlite", "--notify-url", bad])
            #expect(run.status == 2 && run.stderr.contains("--notify-url"), "\(run.stderr)")
        }
        let env = try await Abctl.run(["serve", "--port", "0", "--db", folder.path + "/e.sqlite"], environment: ["ABCTL_NOTIFY_URLS": "http://127.0.0.1:9/a,mailto:x@example.com"])
        #expect(env.status == 2 && env.stderr.contains("--notify-url") && env.stderr.contains("mailto:"), "\(env.stderr)")
    }
}
