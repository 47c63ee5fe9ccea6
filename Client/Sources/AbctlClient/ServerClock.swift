import ExperimentDefinitions
import Foundation

/// How far the device's clock is from the server's, learned from the `Date` header of every
/// answer, and the correction it implies for event timestamps (the server refuses a
/// `ts` more than 10 minutes after its own clock, so a device clock set an hour ahead would
/// otherwise lose every event it logs).
///
/// Shared by the connection's callbacks, the client and the outbox, hence a lock.
final class ServerClock: @unchecked Sendable {
    /// How far ahead of the server's clock a timestamp may be before it is corrected: the server's
    /// own limit.
    static let tolerance: TimeInterval = 600

    private let lock = NSLock()
    // Read and written only while `lock` is held.
    private var offsetSeconds: TimeInterval?
    private let deviceNow: @Sendable () -> Date

    init(deviceNow: @escaping @Sendable () -> Date) {
        self.deviceNow = deviceNow
    }

    /// The server's clock minus the device's, in seconds, from the latest answer; nil before one came.
    var offset: TimeInterval? { lock.withLock { offsetSeconds } }

    /// Records the server's `Date` header of an answer that has just arrived. The header has a
    /// resolution of one second, so offsets under a few seconds mean nothing and are not corrected.
    func observe(dateHeader: String) {
        guard let serverDate = Self.parseHTTPDate(dateHeader) else { return }
        let offset = serverDate.timeIntervalSince(deviceNow())
        lock.withLock { offsetSeconds = offset }
    }

    /// The timestamp as the server's clock would have it, when it is more than `tolerance` ahead
    /// of the server's clock now; nil when it needs no correction (or no offset is known yet).
    func corrected(_ timestamp: Date) -> Date? {
        guard let offset else { return nil }
        let serverNow = deviceNow().addingTimeInterval(offset)
        guard timestamp.timeIntervalSince(serverNow) > Self.tolerance else { return nil }
        return timestamp.addingTimeInterval(offset)
    }

    /// An HTTP date in the preferred format of RFC 9110 (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`),
    /// which is the one servers send; nil for anything else.
    static func parseHTTPDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", parts[1].count == 2, parts[3].count == 4, parts[4].count == 8,
              let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let iso = "\(parts[3])-\(month < 9 ? "0" : "")\(month + 1)-\(parts[1])T\(parts[4])Z"
        return RFC3339.parse(iso)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
