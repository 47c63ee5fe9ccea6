import Testing
import Events
@testable import SQLiteStore
import TestSupport

/// The writer's sort: user ids in SQLite's byte order (a prefix first, canonically equivalent
/// spellings apart), arrival order among the events of one user.
@Test(arguments: [0, 1, 2, 3])
func sortKeysFollowByteOrderThenArrival(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    let users: [UserID] = ["user-0000001", "user-000001", "user-0000010", "user-00000010", "u", "", "é", "e\u{301}", "z",
                 "user-0000001\u{0}", "Ünïcode-user", "user-0000001x", "same-prefix-longer-than-eight-bytes-a",
                 "same-prefix-longer-than-eight-bytes-b"]
    let events = (0..<300).map { i in
        Event(id: "e\(i)", type: .renewed, userID: users.randomElement(using: &rng)!, timestamp: Timestamp(microseconds: 0))
    }
    let keys = SortKeys(events)
    let order = keys.sortedOrder().map(Int.init)
    let expected = events.indices.sorted { a, b in
        let ua = Array(events[a].userID.utf8), ub = Array(events[b].userID.utf8)
        return ua != ub ? ua.lexicographicallyPrecedes(ub) : a < b
    }
    #expect(order == expected)
    for (a, b) in zip(order, order.dropFirst()) {
        #expect(keys.sameUser(a, b) == (Array(events[a].userID.utf8) == Array(events[b].userID.utf8)))
    }
}
