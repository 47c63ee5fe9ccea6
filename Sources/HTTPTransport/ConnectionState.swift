import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One open connection as the deadline watch sees it: which phase it is in and when that phase
/// must be over.
///
/// The phase and its deadline live in one atomic word, so libmicrohttpd's threads move a
/// connection along with a compare-and-swap and no lock, and the watch can cut it with one too:
/// whichever changes the word first wins. A connection once cut stays cut; the server thread that
/// finds it so gives up on the request.
final class ConnectionState: Sendable {
    enum Phase: UInt8, Sendable {
        /// Waiting for the request line and headers (from accept, or from the first byte of a
        /// request on a kept-alive connection).
        case head = 1
        /// Reading the body.
        case body
        /// The handler (or the store) has the request; no deadline.
        case handling
        /// Sending the answer.
        case write
        /// Between requests on a kept-alive connection.
        case idle
        /// Cut by the watch; `cutIn` says in which phase.
        case cut

        var label: String {
            switch self {
            case .head: "head"
            case .body: "body"
            case .handling: "handling"
            case .write: "write"
            case .idle: "idle"
            case .cut: "cut"
            }
        }
    }

    /// A snapshot of the word.
    struct Status: Equatable {
        var phase: Phase
        /// Milliseconds on `Monotonic.milliseconds()`.
        var deadline: Int64
        fileprivate var raw: UInt64
    }

    let fd: Int32
    /// The client's address: per-address limits count it, and each request carries it as text
    /// (the console counts failed sign-ins under it). nil when it is neither IPv4 nor IPv6.
    let peer: PeerAddress?
    /// `peer` spelled once per connection, not once per request.
    let peerText: String?
    private let word: Atomic<UInt64>
    /// When the last answer was sent (ms), for telling an idle connection from a slow request.
    private let idleSinceMS = Atomic<Int64>(0)
    /// Set when the answer asked for a lingering close (a 413 before the body was read).
    let lingerOnClose = Atomic<Bool>(false)
    /// True until libmicrohttpd reports the connection closed. libmicrohttpd closes the socket only
    /// after that report, so whoever holds this lock while it is true may use `fd`.
    let isOpen = Mutex<Bool>(true)

    init(fd: Int32, peer: PeerAddress?, headDeadline: Int64) {
        self.fd = fd
        self.peer = peer
        self.peerText = peer?.text
        word = Atomic(Self.pack(.head, headDeadline))
    }

    var status: Status { Self.unpack(word.load(ordering: .acquiring)) }

    /// The phase the watch cut the connection in, if it did (a cut word keeps it in its deadline bits).
    var cutIn: Phase? {
        let now = status
        return now.phase == .cut ? Phase(rawValue: UInt8(truncatingIfNeeded: now.deadline)) : nil
    }

    /// Moves to `phase` with `deadline` unless the watch has cut the connection; false then.
    @discardableResult
    func enter(_ phase: Phase, deadline: Int64) -> Bool {
        var current = word.load(ordering: .acquiring)
        let desired = Self.pack(phase, deadline)
        while true {
            if Self.unpack(current).phase == .cut { return false }
            let (exchanged, original) = word.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Moves the deadline of the current phase, if the connection is still in `phase`.
    func extend(_ phase: Phase, deadline: Int64) {
        var current = word.load(ordering: .acquiring)
        while Self.unpack(current).phase == phase {
            let (exchanged, original) = word.compareExchange(expected: current, desired: Self.pack(phase, deadline), ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// The answer went out: the connection waits for its next request.
    func becameIdle(now: Int64, checkAt: Int64) {
        idleSinceMS.store(now, ordering: .releasing)
        enter(.idle, deadline: checkAt)
    }

    var idleSince: Int64 { idleSinceMS.load(ordering: .acquiring) }

    /// The watch's move: from exactly `seen` to `phase` (false when a server thread moved first).
    func replace(_ seen: Status, with phase: Phase, deadline: Int64) -> Bool {
        word.compareExchange(expected: seen.raw, desired: Self.pack(phase, deadline), ordering: .acquiringAndReleasing).exchanged
    }

    /// The watch's cut, from exactly `seen` (false when a server thread moved first).
    func cut(_ seen: Status) -> Bool {
        replace(seen, with: .cut, deadline: Int64(seen.phase.rawValue))
    }

    private static func pack(_ phase: Phase, _ deadline: Int64) -> UInt64 {
        UInt64(phase.rawValue) << 56 | UInt64(truncatingIfNeeded: max(0, deadline)) & 0x00FF_FFFF_FFFF_FFFF
    }

    private static func unpack(_ raw: UInt64) -> Status {
        Status(phase: Phase(rawValue: UInt8(raw >> 56)) ?? .cut, deadline: Int64(raw & 0x00FF_FFFF_FFFF_FFFF), raw: raw)
    }
}

/// A client's IP address, as a key for per-address connection counts.
struct PeerAddress: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    /// nil for anything but IPv4 and IPv6.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            high = 0
            low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4))   // as ::ffff:a.b.c.d
        case AF_INET6:
            var bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            (high, low) = withUnsafeBytes(of: &bytes) { raw in
                (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        default:
            return nil
        }
    }

    /// `192.0.2.1` for an IPv4 address, else its eight groups of hex digits (`2001:db8:0:0:0:0:0:1`).
    var text: String {
        if high == 0, low >> 32 == 0xFFFF {
            return [24, 16, 8, 0].map { String((low >> $0) & 0xFF) }.joined(separator: ".")
        }
        // The halves were loaded in memory order: network order within each is read byte by byte.
        let bytes = withUnsafeBytes(of: (high, low)) { Array($0) }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
