import Events
import SQLiteStore
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// A report "as of" an earlier time (`--until`) read from a real store: facts hold revenue to
/// date, so the read must sum it again from the events up to that time.
@Suite struct StoreAsOfTests {
    typealias F = Fixtures

    func event(_ id: EventID, _ type: EventType, _ user: UserID, day: Double, variant: String? = nil, revenue: Double? = nil) -> Event {
        Event(id: id, type: type, userID: user, timestamp: Timestamp(microseconds: F.start + Int64(day * Double(F.day))),
              experiment: variant == nil ? nil : "exp", variant: variant, revenue: revenue, currency: revenue == nil ? nil : "USD")
    }

    func revenueSums(until day: Double?) throws -> [Double] {
        let dir = NSTemporaryDirectory() + "abctl-asof-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait([
            // u: paid on day 1, renewed on day 40, 30.00 of it refunded on day 41.
            event("u1", .exposure, "u", day: 0, variant: "control"),
            event("u2", .converted, "u", day: 1, revenue: 59.99),
            event("u3", .renewed, "u", day: 40, revenue: 59.99),
            event("u4", .refunded, "u", day: 41, revenue: -30),
            // v: a purchase before the exposure never counts; then paid on day 20 and day 50.
            event("v0", .purchased, "v", day: -1, revenue: 4.99),
            event("v1", .exposure, "v", day: 0, variant: "ai"),
            event("v2", .purchased, "v", day: 20, revenue: 9.99),
            event("v3", .renewed, "v", day: 50, revenue: 9.99),
        ])
        let options = ReportOptions(generatedAt: F.date(F.start + 60 * F.day), until: day.map { F.date(F.start + Int64($0 * Double(F.day))) })
        let acc = try ReportAccumulator.read(store: store, experiment: F.experiment(), options: options)
        return acc.tallies.indices.map { acc.tally(.revenuePerUser, variant: $0).values.reduce(0, +) }
    }

    @Test func untilCutsRevenueAtTheAsOfTime() throws {
        #expect(try revenueSums(until: 30) == [59.99, 9.99])
        #expect(try revenueSums(until: 40.5) == [59.99 + 59.99, 9.99])
        #expect(try revenueSums(until: 45) == [59.99 + 59.99 - 30, 9.99])
        #expect(try revenueSums(until: 10) == [59.99, 0])
    }

    @Test func withoutUntilRevenueIsTheStoredTotal() throws {
        #expect(try revenueSums(until: nil) == [59.99 + 59.99 - 30, 9.99 + 9.99])
    }
}
