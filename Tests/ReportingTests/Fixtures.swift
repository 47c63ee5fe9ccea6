import Events
import ExperimentDefinitions
import Foundation
import SQLiteStore
@testable import Reporting

/// Builders shared by the Reporting tests.
enum Fixtures {
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 24 * hour
    /// 2026-12-01T00:00:00Z in microseconds.
    static let start: Int64 = 1_796_083_200_000_000

    static func date(_ micros: Int64) -> Date { Date(timeIntervalSince1970: Double(micros) / 1_000_000) }

    static func experiment(id: String = "exp", name: String = "Experiment", variants: [(String, Double, Int)] = [("control", 1, 3), ("ai", 1, 7)],
                           primary: Metric = .paidConversion, guardrails: [Metric] = [.day0CancelRate], minimumEffect: Double = 0.1,
                           sequential: Bool = false, forced: [UserID: String] = [:], end: Int64? = nil) -> Experiment {
        Experiment(
            id: id, name: name, status: .running, start: date(start), end: end.map(date),
            metrics: MetricsConfig(primary: primary, guardrails: guardrails, day0WindowHours: 24, minimumEffect: minimumEffect, sequential: sequential),
            forced: forced,
            variants: variants.map { Variant(key: $0.0, weight: $0.1, paywall: Paywall(offering: "chorus_plus", trialDays: $0.2, copy: .staticText("Hear every bird."))) })
    }

    /// A fixed, hand-written report for renderer tests (not computed; the numbers only need to be plausible).
    static func report(name: String = "Chorus+ paywall", id: String = "chorus-paywall-copy", verdict: Decision.Verdict = .ship) -> Report {
        func rate(_ m: Metric, _ k: Int, _ n: Int) -> MetricValue {
            MetricValue(metric: m, count: k, denominator: n, rate: Double(k) / Double(n), ci: Bounds(Double(k) / Double(n) - 0.01, Double(k) / Double(n) + 0.01))
        }
        func metrics(_ users: Int, _ paid: Int) -> [MetricValue] {
            [rate(.named("trial_start_rate"), users / 3, users), rate(.paidConversion, paid, users), rate(.named("trial_to_paid"), paid / 2, users / 3),
             rate(.day0CancelRate, users / 30, users / 3), rate(.named("trial_cancel_rate"), users / 12, users / 3),
             MetricValue(metric: .revenuePerUser, count: paid, denominator: users, rate: 1.25, ci: Bounds(1.0, 1.5), sum: 1.25 * Double(users)),
             MetricValue(metric: .proceedsPerUser, count: paid, denominator: users, rate: 0.9, ci: Bounds(0.7, 1.1), sum: 0.9 * Double(users)),
             rate(.named("refund_rate"), paid / 20, paid), rate(.named("billing_issue_rate"), paid / 10, users / 3)]
        }
        var figures = ReportFigures(
            experimentID: id, experimentName: name, hypothesis: "Their own words convert better.", status: "running",
            generatedAt: date(start + 20 * day), asOf: date(start + 20 * day), alpha: 0.05, primaryMetric: .paidConversion,
            guardrails: [.day0CancelRate], minimumEffect: 0.1, sequential: true, users: 20000,
            srm: SRMResult(pValue: 0.41, statistic: 0.68, flagged: false, expectedShares: [0.5, 0.5]),
            variants: [VariantResult(key: "control", users: 10000, isControl: true, metrics: metrics(10000, 350)),
                       VariantResult(key: "ai", users: 10000, isControl: false, metrics: metrics(10000, 410))],
            comparisons: [
                ComparisonResult(variant: "ai", metric: .paidConversion, absoluteDiff: 0.006, absoluteCI: Bounds(0.001, 0.011), relativeLift: 0.17,
                                 relativeCI: Bounds(0.02, 0.32), pValue: 0.02, pValueAdjusted: 0.02, chanceToWin: 0.99, expectedLoss: 0.0001,
                                 sequentialPValue: 0.2, sequentialCI: Bounds(-0.002, 0.014), test: "z-test"),
                ComparisonResult(variant: "ai", metric: .day0CancelRate, absoluteDiff: -0.002, absoluteCI: Bounds(-0.01, 0.006), relativeLift: nil,
                                 relativeCI: nil, pValue: 0.6, pValueAdjusted: 0.6, chanceToWin: 0.3, expectedLoss: 0.001, test: "z-test",
                                 nullReasons: ["relative_lift": "the control's rate is 0"]),
            ],
            survival: SurvivalResult(curves: [
                .init(key: "control", trialStarters: 3333, cancels: 900, atDays: [0.9, 0.85, 0.8, 0.75, 0.72, 0.7],
                      steps: [(0.5, 0.9), (1, 0.85), (3, 0.8), (7, 0.75), (14, 0.72), (30, 0.7)]),
                .init(key: "ai", trialStarters: 3333, cancels: 800, atDays: [0.92, 0.88, 0.84, 0.8, 0.78, 0.76],
                      steps: [(0.5, 0.92), (1, 0.88), (3, 0.84), (7, 0.8), (14, 0.78), (30, 0.76)]),
            ], logRankP: 0.2),
            conversionByDay: ["control", "ai"].enumerated().map { i, k in
                ConversionCurve(key: k, points: (0...30).map { .init(day: $0, users: 10000 - $0 * 100, rate: 0.001 * Double($0) * Double(i + 1)) })
            },
            copySources: [CopySourceSplit(variant: "ai", sources: [.init(source: "on_device", users: 8000, paid: 330), .init(source: "fallback", users: 2000, paid: 80)],
                                          fallbackReasons: [("empty_brief", 1500), ("guard_rejected", 500)])],
            requiredUsersPerVariant: 31000)
        figures.readComparisons()
        return Report(figures: figures,
                      health: [HealthCheck(level: .ok, code: "srm", message: "Users split as planned (p = 0.41)."),
                               HealthCheck(level: .info, code: "forced_users", message: "2 forced QA users were left out.")],
                      decision: Decision(verdict: verdict, winner: verdict == .ship ? "ai" : nil, reasons: ["“ai” converts 17% more users to paid."]))
    }
}

extension UserFacts {
    /// A user's facts with times in microseconds, as the tests write them.
    static func row(experiment: String = "test", userID: UserID, variant: String, firstExposure: Int64, trialStart: Int64? = nil,
                    firstPaid: Int64? = nil, firstConverted: Int64? = nil, firstCancel: Int64? = nil, refunded: Int64? = nil,
                    netRevenue: Double = 0, revenueEntries: [RevenueEntry] = [], crossedOver: Bool = false,
                    copySource: CopySource? = nil, fallbackReason: String? = nil, billingIssue: Int64? = nil) -> UserFacts {
        func at(_ t: Int64?) -> Timestamp? { t.map(Timestamp.init(microseconds:)) }
        return UserFacts(experiment: experiment, userID: userID, variant: variant, firstExposure: Timestamp(microseconds: firstExposure),
                         trialStart: at(trialStart), firstPaid: at(firstPaid), firstConverted: at(firstConverted),
                         firstCancel: at(firstCancel), refundedAt: at(refunded), netRevenue: netRevenue, revenueEntries: revenueEntries,
                         crossedOver: crossedOver, copySource: copySource, copyFallbackReason: fallbackReason, billingIssueAt: at(billingIssue))
    }
}

extension Fixtures {
    /// The report of `events` stored in a throwaway SQLite store, as of 30 days after `start`.
    static func storeReport(_ events: [Event], experiment: Experiment = experiment()) throws -> Report {
        let dir = NSTemporaryDirectory() + "abctl-report-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait(events)
        return try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: date(start + 30 * day)))
    }

    /// The report in the formats a person reads: text, Markdown and HTML.
    static func readableFormats(_ r: Report) -> [(format: String, text: String)] {
        [("text", TextReportRenderer.render(r, color: false)), ("markdown", MarkdownReportRenderer.render(r)), ("html", HTMLReportRenderer.render(r))]
    }
}

extension ReportFigures {
    /// Each comparison read at the figures' alpha and sequential setting, as the analysis reads them
    /// (the tests build figures by hand and change them).
    mutating func readComparisons() {
        comparisons = VerdictReading.read(comparisons, alpha: alpha, sequential: sequential)
    }
}
