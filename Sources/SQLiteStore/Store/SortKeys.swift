#if canImport(Glibc)
import Glibc
#endif
import Events

/// The (user_id, event_id) keys of a batch of events, copied into one byte buffer so the writer
/// can sort the batch in the events table's key order without touching a `String` per
/// comparison (each touch retains and releases it, and small strings are copied out first).
///
/// The order is SQLite's BINARY collation: memcmp of the UTF-8, a prefix first. Swift's `<` on
/// strings would treat canonically equivalent ids as equal; the store does not.
struct SortKeys {
    private var bytes: [UInt8] = []
    /// Per event: where its user id starts, the user id's length, the event id's length (it follows).
    private var spans: [(start: Int32, userLength: Int32, idLength: Int32)] = []

    init(_ events: [Event]) {
        spans.reserveCapacity(events.count)
        bytes.reserveCapacity(events.count * 48)
        for event in events {
            let start = Int32(bytes.count)
            bytes.append(contentsOf: event.userID.utf8)
            let userLength = Int32(bytes.count) - start
            bytes.append(contentsOf: event.id.utf8)
            spans.append((start, userLength, Int32(bytes.count) - start - userLength))
        }
    }

    /// Event positions sorted by (user_id, event_id), then by position.
    func sortedOrder() -> [Int32] {
        var order = (0..<Int32(spans.count)).map { $0 }
        bytes.withUnsafeBufferPointer { raw in
            let base = raw.baseAddress!
            spans.withUnsafeBufferPointer { spans in
                order.sort { a, b in
                    let sa = spans[Int(a)], sb = spans[Int(b)]
                    let byUser = Self.compare(base + Int(sa.start), Int(sa.userLength), base + Int(sb.start), Int(sb.userLength))
                    if byUser != 0 { return byUser < 0 }
                    let byID = Self.compare(base + Int(sa.start + sa.userLength), Int(sa.idLength),
                                            base + Int(sb.start + sb.userLength), Int(sb.idLength))
                    if byID != 0 { return byID < 0 }
                    return a < b
                }
            }
        }
        return order
    }

    /// Whether events `a` and `b` have the same user id, byte for byte.
    func sameUser(_ a: Int, _ b: Int) -> Bool {
        let sa = spans[a], sb = spans[b]
        guard sa.userLength == sb.userLength else { return false }
        return bytes.withUnsafeBufferPointer { raw in
            Self.compare(raw.baseAddress! + Int(sa.start), Int(sa.userLength), raw.baseAddress! + Int(sb.start), Int(sb.userLength)) == 0
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
