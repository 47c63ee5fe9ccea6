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

    /// An outbox in a fresh folder sending through `gate` to `server`.
    static func outbox(_ storage: TemporaryDirectory, _ server: ServeProcess, _ gate: SendGate, automatic: Bool = true,
                       initialBackoff: Duration = .milliseconds(20)) throws -> EventOutbox {
        var configuration = F.configuration(server.url, storage: storage, sendsAutomatically: automatic)
        configuration.batchSize = batch
        configuration.initialBackoff = initialBackoff
        configuration.maxBackoff = max(initialBackoff, configuration.maxBackoff)
        return try EventOutbox(directory: storage.url, configuration: configuration, post: gate.poster)
    }

    static func events(_ user: String, _ range: Range<Int>) -> [ClientEvent] {
        range.map { ClientEvent(id: EventID("\(user)-\($0)"), kind: .purchased, userID: UserID(user)) }
    }

    /// Each of `count` events of `user` is in the server's store exactly once.
    static func expectStoredOnce(_ server: ServeProcess, _ user: String, _ count: Int) throws {
        let rows = try server.query("SELECT event_id, count(*) FROM events WHERE user_id = '\(user)' GROUP BY event_id")
        #expect(rows.count == count)
        #expect(rows.allSatisfy { $0[1] == "1" })
    }

    /// The app's own calls, no hooks: events queued with background sending on, then `flush()`.
    @Test func anAppThatFlushesWithBackgroundSendingOnDeliversEveryBatch() async throws {
        let server = try ServeProcess()
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
        try Self.expectStoredOnce(server, "app", 50)
        await client.close()
    }

    @Test func flushStartsTheSendAndTheBackgroundLoopJoinsIt() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        // Queued by an earlier run that did not send; this run's loop starts only at resume().
        let gate = SendGate(server: server.url)
        _ = try await Self.outbox(storage, server, gate, automatic: false).enqueue(Self.events("flush-first", 0..<50))
        let outbox = try Self.outbox(storage, server, gate)

        let flush = Task { await outbox.flush() }
        #expect(await eventually { await gate.heldCount == 1 })
        await outbox.resume()
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        await gate.openGate()

        #expect(await flush.value)
        #expect(await outbox.depth == 0)
        #expect(await gate.mostOpenAtOnce == 1)
        #expect(await gate.started == 5)
        try Self.expectStoredOnce(server, "flush-first", 50)
        await outbox.close()
    }

    @Test func theBackgroundLoopStartsTheSendAndFlushJoinsIt() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        let outbox = try Self.outbox(storage, server, gate)
        _ = try await outbox.enqueue(Self.events("loop-first", 0..<50))
        #expect(await eventually { await gate.heldCount == 1 })

        let flush = Task { await outbox.flush() }
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        await gate.openGate()

        #expect(await flush.value)
        #expect(await outbox.depth == 0)
        #expect(await gate.mostOpenAtOnce == 1)
        #expect(await gate.started == 5)
        try Self.expectStoredOnce(server, "loop-first", 50)
        await outbox.close()
    }

    /// Sends are let through one at a time, and a flush arrives while each in turn is open: the
    /// flush and the loop take turns starting and joining sends.
    @Test func aFlushArrivingAtEverySendOfTheLoop() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        let outbox = try Self.outbox(storage, server, gate)
        _ = try await outbox.enqueue(Self.events("each", 0..<50))
        var flushes: [Task<Bool, Never>] = []
        for n in 1...5 {
            #expect(await eventually { await gate.isHolding(send: n) })
            flushes.append(Task { await outbox.flush() })
            #expect(await eventually { await outbox.waitingOnSend >= 2 })
            await gate.releaseOne()
        }
        for flush in flushes { #expect(await flush.value) }
        #expect(await outbox.depth == 0)
        #expect(await gate.mostOpenAtOnce == 1)
        #expect(await gate.started == 5)
        try Self.expectStoredOnce(server, "each", 50)
        await outbox.close()
    }

    /// The loop's send fails and it backs off for an hour; a flush then delivers everything.
    @Test func flushDeliversWhileTheLoopBacksOff() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        await gate.fail(send: 1)
        await gate.openGate()
        let outbox = try Self.outbox(storage, server, gate, initialBackoff: .seconds(3600))
        _ = try await outbox.enqueue(Self.events("backoff", 0..<50))
        #expect(await eventually { await outbox.counts.failedSends == 1 })
        #expect(await eventually { await outbox.waitingOnSend == 0 })

        #expect(await outbox.flush())
        #expect(await outbox.depth == 0)
        #expect(await gate.started == 6)
        try Self.expectStoredOnce(server, "backoff", 50)
        await outbox.close()
    }

    /// Events queued while a flush's send is open go out in the same flush.
    @Test func eventsQueuedDuringAFlushAreSentByIt() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        let outbox = try Self.outbox(storage, server, gate)
        _ = try await outbox.enqueue(Self.events("during", 0..<25))
        #expect(await eventually { await gate.heldCount == 1 })
        let flush = Task { await outbox.flush() }
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        _ = try await outbox.enqueue(Self.events("during", 25..<50))
        await gate.openGate()

        #expect(await flush.value)
        #expect(await outbox.depth == 0)
        #expect(await gate.mostOpenAtOnce == 1)
        try Self.expectStoredOnce(server, "during", 50)
        await outbox.close()
    }

    /// A send that fails in the middle of a flush the loop joined: the flush says so and the events
    /// stay queued; the loop retries and delivers them, each once.
    @Test func aSendFailingUnderAFlushLeavesTheRestToTheLoop() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        await gate.fail(send: 2)
        let outbox = try Self.outbox(storage, server, gate)
        _ = try await outbox.enqueue(Self.events("fails", 0..<50))
        #expect(await eventually { await gate.heldCount == 1 })
        let flush = Task { await outbox.flush() }
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        await gate.openGate()

        #expect(await flush.value == false)
        #expect(await eventually { await outbox.depth == 0 })
        #expect(await outbox.counts.failedSends == 1)
        #expect(await gate.mostOpenAtOnce == 1)
        try Self.expectStoredOnce(server, "fails", 50)
        await outbox.close()
    }

    /// Closing stops the loop but not a flush under way; what is delivered is off the disk.
    @Test func closingDuringAFlushLetsTheFlushFinish() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let gate = SendGate(server: server.url)
        let outbox = try Self.outbox(storage, server, gate)
        _ = try await outbox.enqueue(Self.events("close", 0..<50))
        #expect(await eventually { await gate.heldCount == 1 })
        let flush = Task { await outbox.flush() }
        #expect(await eventually { await outbox.waitingOnSend == 2 })
        await outbox.close()
        await gate.openGate()

        #expect(await flush.value)
        try Self.expectStoredOnce(server, "close", 50)
        let reopened = try Self.outbox(storage, server, gate, automatic: false)
        #expect(await reopened.depth == 0)
    }
}
