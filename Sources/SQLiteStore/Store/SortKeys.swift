#if canImport(Glibc)
import Glibc
#endif
import Events

/// The user ids of a batch of events, copied into one byte buffer so the writer can sort the
/// batch in the events table's key order without touching a `String` per comparison (each
/// touch retains and releases it, and small strings are copied out first).
///
/// The order is SQLite's BINARY collation of the user id (memcmp of the UTF-8, a prefix first),
/// then arrival: the events table is keyed by (user_id, event_id), so neighbouring inserts land
/// on the same pages, and of two events with one key the first to arrive is stored. Swift's `<`
/// on strings would treat canonically equivalent ids as equal; the store does not.
struct SortKeys {
    private var bytes: [UInt8] = []
    private var starts: [Int32] = []
    private var lengths: [Int32] = []
    /// The 8 bytes after the prefix all user ids share, big-endian (zero-padded): most
    /// comparisons end here, without a memcmp.
    private var heads: [UInt64] = []
    private var shared = 0

    init(_ events: [Event]) {
        starts.reserveCapacity(events.count)
        lengths.reserveCapacity(events.count)
        bytes.reserveCapacity(events.count * 16)
        for event in events {
            starts.append(Int32(bytes.count))
            bytes.append(contentsOf: event.userID.utf8)
            lengths.append(Int32(bytes.count) - starts[starts.count - 1])
        }
        guard !events.isEmpty else { return }
        var shared = Int(lengths[0])
        for i in 1..<starts.count where shared > 0 {
            let a = Int(starts[0]), b = Int(starts[i])
            var k = 0
            let n = min(shared, Int(lengths[i]))
            while k < n && bytes[a + k] == bytes[b + k] { k += 1 }
            shared = k
        }
        self.shared = shared
        heads = (0..<starts.count).map { i in
            var head: UInt64 = 0
            let start = Int(starts[i]) + shared, end = Int(starts[i]) + Int(lengths[i])
            for k in 0..<8 { head = head << 8 | UInt64(start + k < end ? bytes[start + k] : 0) }
            return head
        }
    }

    /// Event positions sorted by user id, then by position.
    func sortedOrder() -> [Int32] {
        var order = (0..<Int32(starts.count)).map { $0 }
        bytes.withUnsafeBufferPointer { raw in
            starts.withUnsafeBufferPointer { starts in
                lengths.withUnsafeBufferPointer { lengths in
                    heads.withUnsafeBufferPointer { heads in
                        let base = raw.baseAddress!
                        order.sort { a, b in
                            let ha = heads[Int(a)], hb = heads[Int(b)]
                            if ha != hb { return ha < hb }
                            let c = Self.compare(base + Int(starts[Int(a)]), Int(lengths[Int(a)]),
                                                 base + Int(starts[Int(b)]), Int(lengths[Int(b)]))
                            return c != 0 ? c < 0 : a < b
                        }
                    }
                }
            }
        }
        return order
    }

    /// Whether events `a` and `b` have the same user id, byte for byte.
    func sameUser(_ a: Int, _ b: Int) -> Bool {
        guard heads[a] == heads[b], lengths[a] == lengths[b] else { return false }
        return bytes.withUnsafeBufferPointer { raw in
            Self.compare(raw.baseAddress! + Int(starts[a]), Int(lengths[a]), raw.baseAddress! + Int(starts[b]), Int(lengths[b])) == 0
        }
    }

    private static func compare(_ a: UnsafePointer<UInt8>, _ na: Int, _ b: UnsafePointer<UInt8>, _ nb: Int) -> Int {
        let n = min(na, nb)
        if n > 0 {
            let c = memcmp(a, b, n)
            if c != 0 { return Int(c) }
        }
        return na - nb
    }
}
