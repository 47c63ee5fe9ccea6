import Dispatch
import Events
import Foundation
@testable import PostgresStore
import Synchronization
import TestSupport
import Testing

/// Two nodes write at once, each keeping its own `InsertOrder`. Node A's later transaction repeats
/// an event its earlier one holds (a "late" key) and must wait for it; node B's transaction shares
/// a row with each of them. The database sees its own row waits only, so a transaction that held a
/// row while it waited in the process could close a cycle no one detects:
///
///   A-later holds y, waits (in the process) for A-earlier's first insert;
///   B inserts x, then waits (in the database) for A-later's y;
///   A-earlier waits (in the database) for B's x.
///
/// The order is forced step by step; all three must finish.
@Suite(.timeLimit(.minutes(2))) struct CrossNodeInsertOrderTests {
    static func event(_ user: String, _ id: String) -> Event {
        Event(id: EventID(id), type: .purchased, userID: UserID(user), timestamp: EventFactory.at(1), revenue: 1)
    }

    @Test func aTransactionWaitingForAnEarlierOneHoldsNoRow() async throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try PostgresEventStore(url: url)   // creates the schema
        store.close()
        let target = try ConnectionTarget(url: url)
        func writer() throws -> Connection {
            let c = try Connection(target: target)
            try c.execute(EventWriteTransaction.prepareSession, context: "test session")
            return c
        }
        let aEarlier = try writer(), aLater = try writer(), b = try writer()
        let x = Self.event("u1", "x"), y = Self.event("u2", "y"), z = Self.event("u3", "z")

        let laterWaits = DispatchSemaphore(value: 0), earlierInserted = DispatchSemaphore(value: 0)
        let later = EventWriteTransaction.Turn(register: { _ in [InsertOrder.Key(user: z.userID, event: z.id)] }, inserted: {},
                                               waitForEarlier: { laterWaits.signal(); earlierInserted.wait() })
        let earlier = EventWriteTransaction.Turn(register: { _ in [] }, inserted: { earlierInserted.signal() }, waitForEarlier: {})
        let results = Mutex<[String: Result<[AppendResult], any Error>]>([:])
        let done = DispatchGroup()
        func run(_ name: String, _ events: [Event], on c: Connection, _ turn: EventWriteTransaction.Turn) {
            done.enter()
            // Each transaction runs on a thread of its own, as the writer's workers do; the turn and
            // the connection are that thread's alone.
            nonisolated(unsafe) let turn = turn
            Thread {
                let r = Result { try EventWriteTransaction.run([events], on: c, turn: turn) }
                results.withLock { $0[name] = r }
                done.leave()
            }.start()
        }
        run("a-later", [y, z], on: aLater, later)
        #expect(laterWaits.wait(timeout: .now() + 10) == .success)
        run("b", [x, y], on: b, .alone)
        try await Task.sleep(for: .milliseconds(500))   // B's insert runs, or blocks on a row A-later holds
        run("a-earlier", [x, z], on: aEarlier, earlier)

        let finished = try await onOwnThread { done.wait(timeout: .now() + 20) == .success }
        if !finished {
            // Break the deadlock so the test ends: end every other session of this database.
            let admin = try Connection(target: target)
            _ = try? admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                                   context: "test cleanup")
            earlierInserted.signal()
        }
        #expect(finished, "the three transactions deadlocked")
        let stored = results.withLock { $0 }.mapValues { (try? $0.get())?.first?.stored ?? -1 }
        // B stores x and y; A-earlier stores z (its x is B's); A-later stores nothing new.
        #expect(stored == ["b": 2, "a-earlier": 1, "a-later": 0], "\(stored)")
    }
}
