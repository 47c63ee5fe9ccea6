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
        let options = ReportOptions(clock: F.date(F.start + 60 * F.day), until: day.map { F.date(F.start + Int64($0 * Double(F.day))) })
        let acc = try ReportAccumulator.read(store: store, experiment: F.experiment(), options: options, inputs: ReportInputs(options: options))
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

/// One as-of moment: one store read as of one moment, however the moment is given
/// (`--until`, `ABCTL_NOW` or a simulation's end, which set the clock), gives byte-identical JSON,
/// and nothing at or after the moment counts in any figure.
@Suite struct OneAsOfMomentTests {
    typealias F = Fixtures

    static func event(_ id: EventID, _ type: EventType, _ user: UserID, day: Double, variant: String? = nil, revenue: Double? = nil) -> Event {
        Event(id: id, type: type, userID: user, timestamp: Timestamp(microseconds: F.start + Int64(day * Double(F.day))),
              experiment: variant == nil ? nil : "exp", variant: variant, revenue: revenue, currency: revenue == nil ? nil : "USD")
    }

    /// Twelve users in two arms with trials, cancels, payments, renewals and refunds on both sides of day 20.
    static let events: [Event] = {
        var out: [Event] = []
        for i in 0..<12 {
            let u = UserID("u\(i)"), arm = i % 2 == 0 ? "control" : "ai", d = Double(i) * 2.5
            out.append(event("\(u)-x", .exposure, u, day: d, variant: arm))
            out.append(event("\(u)-t", .trialStarted, u, day: d + 0.1))
            if i % 3 == 0 { out.append(event("\(u)-c", .cancelled, u, day: d + 0.5)); continue }
            out.append(event("\(u)-p", .converted, u, day: d + 3.1, revenue: 9.99))
            out.append(event("\(u)-r", .renewed, u, day: d + 10.1, revenue: 9.99))
            if i % 4 == 1 { out.append(event("\(u)-f", .refunded, u, day: d + 12, revenue: -9.99)) }
            if i % 5 == 2 { out.append(event("\(u)-k", .cancelled, u, day: d + 13)) }
        }
        return out
    }()

    static let moment = F.date(F.start + 20 * F.day)

    static func json(_ events: [Event], _ options: ReportOptions) throws -> String {
        let dir = NSTemporaryDirectory() + "abctl-moment-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait(events)
        return JSONReportRenderer.render(try ReportBuilder.report(source: store, experiment: F.experiment(), options: options))
    }

    @Test func theMomentGivenAsUntilOrAsTheClockGivesTheSameJSON() throws {
        let clock = try Self.json(Self.events, ReportOptions(clock: Self.moment))
        let until = try Self.json(Self.events, ReportOptions(clock: Self.moment.addingTimeInterval(90 * 86_400), until: Self.moment))
        #expect(clock == until)
        #expect(clock.contains("\"generated_at\":\"2026-12-21T00:00:00Z\""), "\(clock.prefix(200))")
    }

    @Test func nothingAtOrAfterTheMomentCounts() throws {
        let cut = Timestamp(Self.moment)
        let before = Self.events.filter { $0.timestamp < cut }
        #expect(before.count < Self.events.count - 10)
        let all = try Self.json(Self.events, ReportOptions(clock: Self.moment))
        let only = try Self.json(before, ReportOptions(clock: Self.moment))
        #expect(all == only)
        // An event exactly at the moment is after it.
        let atTheMoment = before + [Event(id: "late", type: .purchased, userID: "u1", timestamp: cut, revenue: 99, currency: "USD")]
        #expect(try Self.json(atTheMoment, ReportOptions(clock: Self.moment)) == only)
    }
}
