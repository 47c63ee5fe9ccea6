import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// What a report asks of its store (`ReportSource`), counted by a store double: only the parts of
/// the facts rows it uses, and the as-of moment settled in one place.
@Suite struct ReportSourceTests {
    typealias F = Fixtures

    /// 200 users, half in each arm, from the US or Germany; every third paid on day 2. Reported as of day 20.
    static func rows() -> [UserFacts] {
        (0..<200).map { i in
            var f = UserFacts.row(experiment: "exp", userID: UserID("u\(1000 + i)"), variant: i % 2 == 0 ? "control" : "ai",
                                  firstExposure: F.start + Int64(i) * F.hour, firstPaid: i % 3 == 0 ? F.start + Int64(i) * F.hour + 2 * F.day : nil,
                                  netRevenue: i % 3 == 0 ? 9.99 : 0,
                                  revenueEntries: i % 3 == 0 ? [RevenueEntry(offset: 2 * F.day, amount: 9.99, proceeds: 8.49)] : [])
            f.placement = "onboarding"
            f.attributes = ExposureAttributes([(key: "country", value: .string(i % 4 < 2 ? "US" : "DE"))])
            return f
        }
    }

    static let asOf = F.date(F.start + 20 * F.day)

    @Test func aPlainReportReadsNoAttributes() throws {
        let source = CountingSource(rows: Self.rows())
        let report = try ReportBuilder.report(source: source, experiment: F.experiment(), options: ReportOptions(clock: Self.asOf))
        #expect(source.fieldsAsked == [.revenueEntries])
        #expect(!source.fieldsAsked[0].contains(.attributes))
        #expect(report.users == 200 && report.segments.isEmpty)
        // The revenue entries were read: proceeds come from them alone.
        let proceeds = try #require(report.variants[0].metrics.first { $0.metric == .proceedsPerUser })
        #expect((proceeds.sum ?? 0) > 0)
        // The same report from whole rows: leaving the attributes unread changes nothing.
        let whole = try ReportBuilder.report(source: CountingSource(rows: Self.rows(), wholeRows: true), experiment: F.experiment(),
                                             options: ReportOptions(clock: Self.asOf))
        #expect(JSONReportRenderer.render(report) == JSONReportRenderer.render(whole))
    }

    @Test(arguments: [["country"], ["placement"]])
    func segmentsStillGetThem(_ by: [String]) throws {
        let source = CountingSource(rows: Self.rows())
        let report = try ReportBuilder.report(source: source, experiment: F.experiment(),
                                              options: ReportOptions(clock: Self.asOf, segments: by, minSegmentUsers: 10))
        #expect(source.fieldsAsked == [.all])
        let cells = try #require(report.segments.first).cells.map(\.value)
        // Each value read from the rows (and `other` for rates too rare in a value); none missing.
        #expect(Set(cells).subtracting([Segments.otherValue]) == (by == ["country"] ? ["US", "DE"] : ["onboarding"]), "\(cells)")
    }

    @Test func postStratificationGetsThem() throws {
        var experiment = F.experiment()
        experiment.metrics.adjustFor = ["country"]
        let source = CountingSource(rows: Self.rows())
        let report = try ReportBuilder.report(source: source, experiment: experiment, options: ReportOptions(clock: Self.asOf))
        #expect(source.fieldsAsked == [.all])
        #expect(report.comparisons.contains { $0.adjustment?.attributes == ["country"] })
    }

    /// The one as-of moment: `until`, else the fixed clock, else where the store's data ends,
    /// else now; the store is asked where its data ends only when nothing else names the moment.
    @Test func theAsOfMomentIsSettledWhereTheSourceIsRead() throws {
        let end = F.start + 10 * F.day
        let until = F.date(F.start + 5 * F.day)
        func read(_ options: ReportOptions) throws -> (asOf: Date, observedReads: Int) {
            let source = CountingSource(rows: Self.rows(), observedUntil: Timestamp(microseconds: end))
            let report = try ReportBuilder.report(source: source, experiment: F.experiment(), options: options)
            #expect(report.generatedAt == report.asOf)
            return (report.asOf, source.observedReads)
        }
        #expect(try read(ReportOptions()) == (F.date(end), 1))
        #expect(try read(ReportOptions(clock: Self.asOf)) == (Self.asOf, 0))
        #expect(try read(ReportOptions(until: until)) == (until, 0))
        #expect(try read(ReportOptions(clock: Self.asOf, until: until)) == (until, 0))
        // An `until` after the clock reads as of the clock.
        #expect(try read(ReportOptions(clock: until, until: Self.asOf)) == (until, 0))
    }

    /// An `until` after now (no fixed clock) is read as of the later of now and where the store's
    /// data ends, never past the `until` asked, and the health says so with the events left out.
    @Test func anUntilAfterNowSaysWhatItReadInstead() throws {
        let now = Date()
        func read(until: Date, end: Date?) throws -> Report {
            let source = CountingSource(rows: Self.rows(), observedUntil: end.map { Timestamp($0) })
            return try ReportBuilder.report(source: source, experiment: F.experiment(), options: ReportOptions(until: until))
        }
        func note(_ report: Report) -> HealthCheck? { report.health.first { $0.code == "until_after_now" } }
        let ahead = now.addingTimeInterval(5 * 86_400), end = now.addingTimeInterval(10 * 86_400)
        // The store's data reaches past the until asked: read as of it.
        let within = try read(until: ahead, end: end)
        #expect(within.asOf == ahead)
        #expect(note(within)?.level == .info && note(within)?.count == 0)
        #expect(note(within)?.message.contains("the store's data reaches past now") == true, "\(note(within)?.message ?? "")")
        // An until past the store's end: read as of the end.
        let beyond = try read(until: now.addingTimeInterval(20 * 86_400), end: end)
        #expect(abs(beyond.asOf.timeIntervalSince(end)) < 0.001)
        #expect(note(beyond)?.message.contains("the later of now and where the store's data ends") == true)
        // No stored end: read as of now.
        let none = try read(until: ahead, end: nil)
        #expect(none.asOf >= now && none.asOf < ahead && note(none) != nil)
        // An until before now is the moment itself, and nothing is said.
        #expect(note(try read(until: F.date(F.start + 5 * F.day), end: nil)) == nil)
    }
}
