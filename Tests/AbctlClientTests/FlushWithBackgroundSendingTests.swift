@testable import AbctlClient
import Foundation
import TestSupport
import Testing

/// `flush()` and background sending together, in every order a test can force: the queue's promise
/// is that each event reaches the server once, whoever sends it, and that sending never stops while
/// events are queued. Batches are small (10), so 50 events are five sends.
///
/// Before the repair, the caller that started a send also cleared its in-flight mark: when a flush
/// started the send and the background loop joined it, the flush resumed first, found the finished
/// send still marked, "joined" it again at once without suspending, and held the actor in a loop.
/// One batch arrived, then nothing, with a core busy.
@Suite(.timeLimit(.minutes(1))) struct FlushWithBackgroundSendingTests {
    typealias F = ClientFixtures
    static let batch = 10

    /// A live server, a folder for the queue, and a gate in front of the server.
    struct Rig {
        let server: ServeProcess
        let storage: TemporaryDirectory
        let gate: SendGate

        static func start() async throws -> Rig {
            let server = try await ServeProcess.start()
            return Rig(server: server, storage: try TemporaryDirectory(), gate: SendGate(server: server.url))
        }

        /// An outbox on the rig's folder, sending through the gate.
        func outbox(automatic: Bool = true, initialBackoff: Duration = .milliseconds(20)) throws -> EventOutbox {
            var configuration = F.configuration(server.url, storage: storage, sendsAutomatically: automatic)
            configuration.batchSize = batch
            configuration.initialBackoff = initialBackoff
            configuration.maxBackoff = max(initialBackoff, configuration.maxBackoff)
            return try EventOutbox(directory: storage.url, configuration: configuration, post: gate.poster)
        }

        /// An outbox whose loop holds its first send of `user`'s events open at the gate, with a
        /// flush waiting on that same send.
        func flushJoiningTheLoop(_ user: String, queued: Int = 50) async throws -> (EventOutbox, Task<Bool, Never>) {
            let outbox = try outbox()
            _ = try await outbox.enqueue(events(user, 0..<queued))
            #expect(await eventually { await gate.heldCount == 1 })
            let flush = Task { await outbox.flush() }
            #expect(await eventually { await outbox.waitingOnSend == 2 })
            return (outbox, flush)
        }

        /// Every one of `user`'s 50 events is off the queue and in the server's store exactly once,
        /// and no two sends were ever open at once.
        func expectDelivered(_ outbox: EventOutbox, _ user: String) async throws {
            #expect(await eventually { await outbox.depth == 0 })
            #expect(await gate.mostOpenAtOnce == 1)
            try await expectStoredOnce(server, user, 50)
        }

        func remove() { storage.remove() }
    }

    static func events(_ user: String, _ range: Range<Int>) -> [ClientEvent] {
        range.map { ClientEvent(id: "\(user)-\($0)", kind: .purchased, userID: UserID(user)) }
    }

    /// Each of `count` events of `user` is in the server's store exactly once.
    static func expectStoredOnce(_ server: ServeProcess, _ user: String, _ count: Int) async throws {
        let rows = try await server.query("SELECT event_id, count(*) FROM events WHERE user_id = '\(user)' GROUP BY event_id")
        #expect(rows.count == count)
        #expect(rows.allSatisfy { $0[1] == "1" })
    }

    /// The app's own calls, no hooks: events queued with background sending on, then `flush()`.
    @Test func anAppThatFlushesWithBackgroundSendingOnDeliversEveryBatch() async throws {
        let server = try await ServeProcess.start()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        var configuration = F.configuration(server.url, storage: storage, sendsAutomatically: true)
        configuration.batchSize = Self.batch
        let client = try AbctlClient(configuration: configuration)
        #expect(try await client.log(Self.events("app", 0..<50)) == 50)
        #expect(await client.flush())
        let d = await client.diagnostics()
        #expect(d.queueDepth == 0)
        #expect(d.eventsStored + d.eventsDuplicate == 50)
        try await Self.expectStoredOnce(server, "app", 50)
        await client.close()
    }

    @Test func flushStartsTheSendAndTheBackgroundLoopJoinsIt() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        // Queued by an earlier run that did not send; this run's loop starts only at resume().
        _ = try await rig.outbox(automatic: false).enqueue(Self.events("flush-first", 0..<50))
        let outbox = try rig.outbox()
        let flush = Task { await outbox.flush() }
        #expect(await eventually { await rig.gate.heldCount == 1 })
        await outbox.resume()
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        await rig.gate.openGate()

        #expect(await flush.value)
        #expect(await rig.gate.started == 5)
        try await rig.expectDelivered(outbox, "flush-first")
        await outbox.close()
    }

    @Test func theBackgroundLoopStartsTheSendAndFlushJoinsIt() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        let (outbox, flush) = try await rig.flushJoiningTheLoop("loop-first")
        await rig.gate.openGate()

        #expect(await flush.value)
        #expect(await rig.gate.started == 5)
        try await rig.expectDelivered(outbox, "loop-first")
        await outbox.close()
    }

    /// Sends are let through one at a time, and a flush arrives while each in turn is open: the
    /// flush and the loop take turns starting and joining sends.
    @Test func aFlushArrivingAtEverySendOfTheLoop() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        let outbox = try rig.outbox()
        _ = try await outbox.enqueue(Self.events("each", 0..<50))
        var flushes: [Task<Bool, Never>] = []
        for n in 1...5 {
            #expect(await eventually { await rig.gate.isHolding(send: n) })
            flushes.append(Task { await outbox.flush() })
            #expect(await eventually { await outbox.waitingOnSend >= 2 })
            await rig.gate.releaseOne()
        }
        for flush in flushes { #expect(await flush.value) }
        #expect(await rig.gate.started == 5)
        try await rig.expectDelivered(outbox, "each")
        await outbox.close()
    }

    /// The loop's send fails and it backs off for an hour; a flush then delivers everything.
    @Test func flushDeliversWhileTheLoopBacksOff() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        await rig.gate.fail(send: 1)
        await rig.gate.openGate()
        let outbox = try rig.outbox(initialBackoff: .seconds(3600))
        _ = try await outbox.enqueue(Self.events("backoff", 0..<50))
        #expect(await eventually { await outbox.counts.failedSends == 1 })
        #expect(await eventually { await outbox.waitingOnSend == 0 })

        #expect(await outbox.flush())
        #expect(await rig.gate.started == 6)
        try await rig.expectDelivered(outbox, "backoff")
        await outbox.close()
    }

    /// Events queued while a flush's send is open go out in the same flush.
    @Test func eventsQueuedDuringAFlushAreSentByIt() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        let (outbox, flush) = try await rig.flushJoiningTheLoop("during", queued: 25)
        _ = try await outbox.enqueue(Self.events("during", 25..<50))
        await rig.gate.openGate()

        #expect(await flush.value)
        #expect(await outbox.depth == 0)
        try await rig.expectDelivered(outbox, "during")
        await outbox.close()
    }

    /// A send that fails in the middle of a flush the loop joined: the flush says so and the events
    /// stay queued; the loop retries and delivers them, each once.
    @Test func aSendFailingUnderAFlushLeavesTheRestToTheLoop() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        await rig.gate.fail(send: 2)
        let (outbox, flush) = try await rig.flushJoiningTheLoop("fails")
        // Send 2 fails only once the flush and the loop both wait on it: failed at once, it could end
        // before a loaded machine resumed the flush, which would then start a send 3 of its own.
        await rig.gate.releaseOne()
        #expect(await eventually {
            let waiting = await outbox.waitingOnSend
            return await rig.gate.isHolding(send: 2) && waiting == 2
        })
        await rig.gate.openGate()

        #expect(await flush.value == false)
        try await rig.expectDelivered(outbox, "fails")
        #expect(await outbox.counts.failedSends == 1)
        await outbox.close()
    }

    /// Closing stops the loop but not a flush under way; what is delivered is off the disk.
    @Test func closingDuringAFlushLetsTheFlushFinish() async throws {
        let rig = try await Rig.start()
        defer { rig.remove() }
        let (outbox, flush) = try await rig.flushJoiningTheLoop("close")
        await outbox.close()
        await rig.gate.openGate()

        #expect(await flush.value)
        try await Self.expectStoredOnce(rig.server, "close", 50)
        let reopened = try rig.outbox(automatic: false)
        #expect(await reopened.depth == 0)
    }
}
