import Events
import ExperimentDefinitions
import Foundation
import SQLiteStore
import Testing
@testable import Reporting

/// The effect over time: each day's point is the primary comparison a report run to that day's end
/// gives (`--until` the next midnight), read from the same store: the users first exposed by then,
/// as mature as they were then. Checked day by day against whole reports, for a rate and revenue,
/// with and without a horizon, with a revenue cap and with post-stratification.
@Suite struct TimelineTests {
    typealias F = Fixtures

    static func event(_ id: String, _ type: EventType, _ user: UserID, at micros: Int64, variant: String? = nil, revenue: Double? = nil,
                      country: String? = nil) -> Event {
        Event(id: EventID(id), type: type, userID: user, timestamp: Timestamp(microseconds: micros),
              experiment: variant == nil ? nil : "exp", variant: variant, revenue: revenue, currency: revenue == nil ? nil : "USD",
              attributes: country.map { ExposureAttributes([(key: "country", value: .string($0))]) } ?? .empty)
    }

    /// 420 users over 21 days in three arms (trials of 3, 7 and 3 days, or none with `trials: false`),
    /// from the US or Germany: trial starts, Day-0 cancels, conversions after the trial, purchases,
    /// renewals and refunds, drawn from a fixed sequence so the arms differ.
    static func events(trials: Bool) -> [Event] {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let arms = ["control", "ai", "short"]
        var out: [Event] = []
        for i in 0..<420 {
            let u = UserID("u\(i)"), arm = i % 3
            let exposed = F.start + Int64(Double(i) / 20 * Double(F.day)) + Int64(next() * Double(F.hour))
            let lift = arm == 1 ? 0.12 : arm == 2 ? 0.05 : 0
            out.append(event("\(u)-x", .exposure, u, at: exposed, variant: arms[arm], country: next() < 0.6 ? "US" : "DE"))
            if trials, next() < 0.4 + lift {
                let trialStart = exposed + Int64(next() * Double(F.hour))
                out.append(event("\(u)-t", .trialStarted, u, at: trialStart))
                if next() < 0.2 - lift / 2 { out.append(event("\(u)-c", .cancelled, u, at: trialStart + Int64(next() * 20 * Double(F.hour)))); continue }
                let trialDays = Int64(arm == 1 ? 7 : 3)
                if next() < 0.5 + lift {
                    let paid = trialStart + trialDays * F.day + Int64(next() * Double(F.day))
                    out.append(event("\(u)-p", .converted, u, at: paid, revenue: next() < 0.2 ? 59.99 : 9.99))
                    if next() < 0.4 { out.append(event("\(u)-r", .renewed, u, at: paid + 7 * F.day, revenue: 9.99)) }
                    if next() < 0.1 { out.append(event("\(u)-f", .refunded, u, at: paid + 2 * F.day, revenue: -9.99)) }
                }
            } else if next() < 0.15 + lift {
                let paid = exposed + Int64(next() * 5 * Double(F.day))
                out.append(event("\(u)-b", .purchased, u, at: paid, revenue: next() < 0.1 ? 49.99 : 4.99))
                if next() < 0.5 { out.append(event("\(u)-r", .renewed, u, at: paid + 3 * F.day, revenue: 4.99)) }
                if next() < 0.1 { out.append(event("\(u)-f", .refunded, u, at: paid + F.day, revenue: -4.99)) }
            }
        }
        return out
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var primary: Metric
        var trials = true
        var cap: RevenueCap? = nil
        var adjustFor: [String] = []
        var testDescription: String { name }

        var experiment: Experiment {
            var e = F.experiment(variants: [("control", 1, trials ? 3 : 0), ("ai", 1, trials ? 7 : 0), ("short", 1, trials ? 3 : 0)], primary: primary)
            e.metrics.revenueCap = cap
            e.metrics.adjustFor = adjustFor
            if !trials { e.metrics.maturityGraceDays = 0 }
            return e
        }
    }

    static let cases: [Case] = [
        Case(name: "paid conversion, read in its 10-day form", primary: .paidConversion),
        Case(name: "gross revenue, 10-day form, 90th-percentile cap", primary: .revenuePerUser, cap: .percentile(0.9)),
        Case(name: "Day-0 cancels, each once its window has passed", primary: .day0CancelRate),
        Case(name: "trial starts, post-stratified by country", primary: .named("trial_start_rate"), adjustFor: ["country"]),
        Case(name: "gross revenue to date (no trial, no grace), capped at 20", primary: .revenuePerUser, trials: false, cap: .absolute(20)),
        Case(name: "proceeds to date (no trial, no grace)", primary: .proceedsPerUser, trials: false),
    ]

    static let moment = F.date(F.start + 26 * F.day + 6 * F.hour)

    static func withStore<T>(_ events: [Event], _ body: (SQLiteEventStore) throws -> T) throws -> T {
        let dir = NSTemporaryDirectory() + "abctl-timeline-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait(events)
        return try body(store)
    }

    static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (x?, y?): abs(x - y) <= 1e-12 * max(1, abs(y))
        default: false
        }
    }

    @Test(arguments: TimelineTests.cases) func eachDayIsTheReportRunToThatDaysEnd(_ c: Case) throws {
        try Self.withStore(Self.events(trials: c.trials)) { store in
            let experiment = c.experiment
            let report = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: Self.moment))
            let timeline = try #require(report.timeline)
            #expect(timeline.metric == ReportAccumulator.verdictPrimary(experiment, among: report.metrics))
            // From the start's day to the as-of day: 27 days, the last read as of the report's moment.
            #expect(timeline.points.count == 27)
            #expect(timeline.points.first?.date == F.date(F.start))
            #expect(timeline.points.last?.asOf == Self.moment)
            var compared = 0
            for point in timeline.points {
                let asOfThen = try ReportBuilder.report(source: store, experiment: experiment,
                                                        options: ReportOptions(clock: Self.moment, until: point.asOf))
                #expect(point.users == asOfThen.variants.map(\.users), "\(point.date)")
                for mine in point.comparisons {
                    let theirs = try #require(asOfThen.comparison(mine.variant, timeline.metric))
                    #expect(Self.same(mine.absoluteDiff, theirs.absoluteDiff), "\(point.date) \(mine.variant): \(String(describing: mine.absoluteDiff)) vs \(String(describing: theirs.absoluteDiff))")
                    #expect(Self.same(mine.absoluteCI?.lower, theirs.absoluteCI?.lower) && Self.same(mine.absoluteCI?.upper, theirs.absoluteCI?.upper),
                            "\(point.date) \(mine.variant)")
                    #expect(mine.test == theirs.test)
                    if mine.absoluteDiff != nil { compared += 1 }
                }
            }
            // The days compared are most of them (a horizon form has none in its first days).
            #expect(compared >= 2 * 10, "\(compared)")
            // The last day is the report's own comparison.
            for mine in timeline.points.last!.comparisons {
                let theirs = try #require(report.comparison(mine.variant, timeline.metric))
                #expect(mine.absoluteDiff == theirs.absoluteDiff && mine.absoluteCI == theirs.absoluteCI)
            }
        }
    }

    /// A point shows the difference and its interval only, so it is compared without the chance to
    /// win and the expected loss (three integrals a comparison); the report's own comparison has them.
    @Test func aPointLeavesOutTheFiguresItDoesNotShow() throws {
        try Self.withStore(Self.events(trials: true)) { store in
            let experiment = Self.cases[0].experiment
            let report = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: Self.moment))
            let timeline = try #require(report.timeline)
            let compared = timeline.points.flatMap(\.comparisons).filter { $0.absoluteDiff != nil }
            #expect(!compared.isEmpty)
            #expect(compared.allSatisfy { $0.chanceToWin == nil && $0.expectedLoss == nil })
            for mine in timeline.points.last!.comparisons {
                let theirs = try #require(report.comparison(mine.variant, timeline.metric))
                #expect(theirs.chanceToWin != nil && theirs.expectedLoss != nil)
                #expect(mine.absoluteDiff == theirs.absoluteDiff && mine.absoluteCI == theirs.absoluteCI)
            }
        }
    }

    /// Read with the maturity rule as of each day: `paid_conversion` with 7-day trials and 3 days'
    /// grace is read as `paid_conversion_d10`, so a day before anyone was followed 10 days has no
    /// figure, and a later day counts only the users exposed 10 days before its end.
    @Test func aDayCountsOnlyTheUsersMatureByThen() throws {
        try Self.withStore(Self.events(trials: true)) { store in
            let experiment = Self.cases[0].experiment
            let report = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: Self.moment))
            let timeline = try #require(report.timeline)
            #expect(timeline.metric.name == "paid_conversion_d10")
            for point in timeline.points.prefix(9) {
                #expect(point.comparisons.allSatisfy { $0.absoluteDiff == nil && $0.nullReasons["absolute_diff"] != nil }, "\(point.date)")
            }
            // Day 15 (2026-12-16) ends at 12-17 00:00: its 10-day users are those exposed by 12-07 00:00…
            let day15 = timeline.points[15]
            let early = ReportOptions(clock: Self.moment, until: F.date(F.start + 6 * F.day))
            let exposedByThen = try ReportBuilder.report(source: store, experiment: experiment, options: early)
            let mature = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: Self.moment, until: day15.asOf))
            // …and the 10-day denominators as of day 15's end are exactly those users, not the 340 exposed by then.
            #expect(mature.variants.map { $0.metric(timeline.metric)?.denominator ?? -1 } == exposedByThen.variants.map(\.users))
            #expect(day15.users.reduce(0, +) > exposedByThen.users + 100)
        }
    }

    @Test func theJSONCarriesTheShapeOfTheContract() throws {
        try Self.withStore(Self.events(trials: true)) { store in
            let report = try ReportBuilder.report(source: store, experiment: Self.cases[0].experiment, options: ReportOptions(clock: Self.moment))
            let json = JSONReportRenderer.render(report)
            #expect(json.contains(#""timeline":{"metric":"paid_conversion_d10","points":[{"date":"2026-12-01","users":{"control":"#), "\(json.suffix(600))")
            #expect(json.contains(#""comparisons":{"ai":{"absolute_diff":null,"absolute_ci":null,"null_reason":"#))
            #expect(json.contains(#"{"date":"2026-12-27","users":{"control":140,"ai":140,"short":140},"comparisons":{"ai":{"absolute_diff":"#))
            let csv = CSVReportRenderer.render(report)
            #expect(csv.contains(",timeline,2026-12-27,"))
            let html = HTMLReportRenderer.render(report)
            #expect(html.contains("<h2>The effect over time</h2>"))
            #expect(html.contains("aria-label=\"Difference in paid conversion, first 10 days against the control by day"))
            let text = TextReportRenderer.render(report, color: false)
            #expect(text.contains("THE EFFECT OVER TIME"))
            #expect(text.contains("2026-12-27"))
            #expect(MarkdownReportRenderer.render(report).contains("The effect over time"))
        }
    }

    @Test func beyondNinetyDaysTheDaysShownAreEvenlySpaced() {
        #expect(TimelineAnalysis.pointDays(from: 0, to: 27) == Array(0..<27))
        let days = TimelineAnalysis.pointDays(from: 5, to: 400)
        #expect(days.count == 90 && days.first == 5 && days.last == 399)
        #expect(zip(days, days.dropFirst()).allSatisfy { $1 - $0 == 4 || $1 - $0 == 5 })
    }
}
