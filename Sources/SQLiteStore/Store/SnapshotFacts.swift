import Dispatch
import Events
import ExperimentDefinitions

/// The facts a write transaction will leave for its touched users, computed on a thread of its
/// own while the writer inserts, so reading each user's events and running `FactsBuilder` use
/// the second core and the writer only inserts and upserts.
///
/// Each user's stored events are read on a read connection whose snapshot is taken after the
/// writer's `BEGIN IMMEDIATE`: no commit can come between, so it shows exactly what the
/// transaction starts from. The transaction's new events are added the way the insert treats
/// them: in arrival order, skipping one whose (user_id, event_id) is already stored or came
/// earlier (ids compared byte for byte, as SQLite compares them). The number added is kept per
/// user; the writer uses a user's result only when its inserts stored that many events for the
/// user, and otherwise recomputes the user from the write connection.
///
/// `@unchecked Sendable`: the worker writes the results before `done` is left, and the writer
/// reads them only after `wait()` returns.
final class SnapshotFacts: @unchecked Sendable {
    /// Per requested user, in request order: the facts, and how many new events went into them.
    private var facts: [[UserFacts]]
    private var added: [Int32]
    private var failure: (any Error)?
    private let done = DispatchGroup()

    private static let queue = DispatchQueue(label: "abctl.eventstore.facts")

    /// Starts computing, for each range of `users` (positions in `order`, one user's events
    /// each), that user's facts from the snapshot plus `events[order[position]]`.
    init(events: [Event], order: [Int32], users: [Range<Int>], readers: ReaderPool) {
        facts = Array(repeating: [], count: users.count)
        added = Array(repeating: -1, count: users.count)
        done.enter()
        Self.queue.async {
            defer { self.done.leave() }
            do {
                // Events read in place through the buffer, not copied with all their strings.
                try readers.read { connection in try events.withUnsafeBufferPointer { events in
                    let select = try connection.cached(FactsRefresh.selectEventsSQL)
                    for (u, range) in users.enumerated() {
                        let userID = events[Int(order[range.lowerBound])].userID
                        var sources = try FactsRefresh.storedSources(userID: userID, select: select)
                        var ids = EventIDs(sources)
                        var count: Int32 = 0
                        for position in range {
                            let k = Int(order[position])
                            guard ids.insert(events[k].id) else { continue }
                            sources.append(FactsBuilder.Source(events[k]))
                            count += 1
                        }
                        self.facts[u] = FactsBuilder.facts(userID: userID, events: sources)
                        self.added[u] = count
                    }
                } }
            } catch {
                self.failure = error
            }
        }
    }

    /// Waits for the worker. Afterwards `result` may be read.
    func wait() { done.wait() }

    /// User `u`'s facts when they were computed from `stored` new events, else nil (the worker
    /// failed, or saw the user's events differently from the inserts).
    func result(_ u: Int, stored: Int) -> [UserFacts]? {
        guard failure == nil, added[u] == Int32(stored) else { return nil }
        return facts[u]
    }
}

/// One user's event ids: a list while small, as most users have a few events; hashed beyond that.
private struct EventIDs {
    private var list: [EventID] = []
    private var hashed: Set<EventID>?

    init(_ sources: [FactsBuilder.Source]) {
        for source in sources { _ = insert(source.eventID) }
    }

    /// Adds `id`; false when it was already there.
    mutating func insert(_ id: EventID) -> Bool {
        if hashed != nil { return hashed!.insert(id).inserted }
        for other in list where other == id { return false }
        list.append(id)
        if list.count > 32 { hashed = Set(list) }
        return true
    }
}
