import Events
import ExperimentDefinitions
import Foundation
import Synchronization

/// Keeps a node's write transactions from racing on the same event: of two copies of an event
/// (user_id, event_id) in flight at once (a retry, a repeated line in a file), the one whose
/// batch left the queue first is stored, as SQLite's single writer stores it.
///
/// Transactions register their events' keys in queue order (a short step, one at a time). A key
/// an earlier transaction still in flight holds is *late*: the later transaction inserts its
/// other rows at once, in parallel with the earlier one, and its late rows only after the
/// earlier insert has run; the database then makes that second insert wait for the earlier
/// transaction's end and skips the copies it stored.
final class InsertOrder: Sendable {
    /// An event's idempotency key.
    struct Key: Hashable, Sendable {
        var user: UserID
        var event: EventID
    }

    /// What `register` found: the keys an earlier transaction holds, and those transactions.
    struct Registration: Sendable {
        var ticket: Int
        var late: Set<Key>
        var earlier: Set<Int>
        fileprivate var mine: [Key]
    }

    private struct State {
        var issued = 0
        var nextToRegister = 0
        /// Each key's first holder among the transactions in flight.
        var holders: [Key: Int] = [:]
        /// Registered transactions whose first insert has not run yet.
        var inserting: Set<Int> = []
    }

    private let state = Mutex(State())
    /// Wakes waiting transactions (`NSCondition` only wakes; `state` holds the data).
    private let changed = NSCondition()

    /// A place in line, taken when a transaction's batches leave the queue.
    func ticket() -> Int { state.withLock { s in defer { s.issued += 1 }; return s.issued } }

    /// Registers `keys` when `ticket`'s turn comes.
    func register<Keys: Sequence<Key>>(_ ticket: Int, keys: Keys) -> Registration {
        wait { $0.nextToRegister == ticket }
        var registration = Registration(ticket: ticket, late: [], earlier: [], mine: [])
        update { s in
            for key in keys {
                if let holder = s.holders[key] {
                    registration.late.insert(key)
                    registration.earlier.insert(holder)
                } else {
                    s.holders[key] = ticket
                    registration.mine.append(key)
                }
            }
            s.inserting.insert(ticket)
            s.nextToRegister += 1
        }
        return registration
    }

    /// Marks the first insert of `registration`'s transaction as run.
    func inserted(_ registration: Registration) {
        update { $0.inserting.remove(registration.ticket) }
    }

    /// Waits until the earlier holders of `registration`'s late keys have run their first insert.
    func waitForEarlier(_ registration: Registration) {
        wait { s in registration.earlier.allSatisfy { !s.inserting.contains($0) } }
    }

    /// Releases `registration`'s keys once its transaction has ended (committed or failed).
    func end(_ registration: Registration) {
        update { s in
            for key in registration.mine where s.holders[key] == registration.ticket { s.holders[key] = nil }
            s.inserting.remove(registration.ticket)
        }
    }

    /// Gives up `ticket`'s turn when its transaction failed before registering (the turn must
    /// still pass, or every later transaction would wait for it).
    func abandon(_ ticket: Int) {
        wait { $0.nextToRegister >= ticket }
        update { s in if s.nextToRegister == ticket { s.nextToRegister += 1 } }
    }

    private func wait(until ready: (State) -> Bool) {
        changed.lock()
        defer { changed.unlock() }
        while !state.withLock({ ready($0) }) { changed.wait() }
    }

    private func update(_ body: (inout State) -> Void) {
        changed.lock()
        defer { changed.unlock() }
        state.withLock { body(&$0) }
        changed.broadcast()
    }
}
