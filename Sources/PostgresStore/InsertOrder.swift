import Foundation
import Synchronization

/// Keeps a node's write transactions from racing on the same event: of two copies of an event
/// (user_id, event_id) in flight at once (a retry, a repeated line in a file), the one whose
/// batch left the queue first is stored, as SQLite's single writer stores it.
///
/// Transactions register their events' keys in queue order (a short step, one at a time).
/// A transaction holding a key an earlier one also holds starts its insert only after the
/// earlier insert has run; the database then makes it wait for that transaction's end and
/// skips the copy. Transactions with no key in common insert in parallel.
final class InsertOrder: Sendable {
    struct Key: Hashable, Sendable {
        var user: String
        var event: String
    }

    private struct State {
        var issued = 0
        var nextToRegister = 0
        /// Each key's first holder among the transactions that have not inserted yet.
        var holders: [Key: Int] = [:]
        /// Registered transactions whose insert has not run yet.
        var pending: Set<Int> = []
    }

    private let state = Mutex(State())
    /// Wakes waiting transactions (`NSCondition` only wakes; `state` holds the data).
    private let changed = NSCondition()

    /// A place in line, taken when a transaction's batches leave the queue.
    func ticket() -> Int { state.withLock { s in defer { s.issued += 1 }; return s.issued } }

    /// Registers `keys` when `ticket`'s turn comes, waits for the earlier holders of any of them
    /// to insert, then runs `insert`.
    func insert<Keys: Sequence<Key>>(_ ticket: Int, keys: Keys, _ insert: () throws -> Void) rethrows {
        var mine: [Key] = []
        var blockers: Set<Int> = []
        wait { $0.nextToRegister == ticket }
        update { s in
            for key in keys {
                if let holder = s.holders[key] { blockers.insert(holder) } else { s.holders[key] = ticket; mine.append(key) }
            }
            s.pending.insert(ticket)
            s.nextToRegister += 1
        }
        defer {
            update { s in
                for key in mine { s.holders[key] = nil }
                s.pending.remove(ticket)
            }
        }
        wait { s in blockers.allSatisfy { !s.pending.contains($0) } }
        try insert()
    }

    /// Gives up `ticket`'s turn when its transaction failed before inserting (its turn to
    /// register must still pass, or every later transaction would wait for it).
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
