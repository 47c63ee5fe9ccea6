import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// Horizon metrics, the revenue cap, Bayesian revenue and crossover, through the whole report and every format.
@Suite struct RevenueReportTests {
    typealias F = Fixtures

    /// 200 users per arm over 20 days; the treatment pays more often; every 7th user paid 500 once (a whale);
    /// `crossovers` users per arm were later shown the other variant.
    static func report(cap: RevenueCap? = .absolute(100), crossovers: Int = 0) throws -> Report {
        var exp = F.experiment()
        exp.metrics.primary = .named("revenue_per_user_d7")
        exp.metrics.secondary = [.named("paid_conversion_d7"), .named("refund_rate_d3")]
        exp.metrics.revenueCap = cap
        var acc = ReportAccumulator(experiment: exp, options: ReportOptions(clock: F.date(F.start + 20 * F.day)))
        for v in 0..<2 {
            for i in 0..<200 {
                let exposure = F.start + Int64(i % 20) * F.day + F.hour
                let pays = i % (v == 0 ? 5 : 3) == 0
                let amount = i % 7 == 0 ? 500.0 : 9.99
                let paidAt: Int64 = pays ? 2 * F.day : 0
                let entries = pays ? [RevenueEntry(offset: paidAt, amount: amount)] : []
                acc.add(UserFacts.row(userID: "u\(v)-\(i)", variant: v == 0 ? "control" : "ai", firstExposure: exposure,
                                  firstPaid: pays ? exposure + paidAt : nil, netRevenue: entries.reduce(0) { $0 + $1.amount },
                                  revenueEntries: entries, crossedOver: i < crossovers))
            }
        }
        return try ReportAnalyzer.analyze(acc)
    }

    @Test func horizonMetricsAreReportedAndCompared() throws {
        let r = try Self.report()
        #expect(r.metrics.map(\.name).suffix(3) == ["revenue_per_user_d7", "paid_conversion_d7", "refund_rate_d3"])
        // Users exposed on days 0..12 have been followed 7 days by day 20: 13 of every 20.
        let d7 = try #require(r.control.metric(.named("paid_conversion_d7")))
        #expect(d7.denominator == 130)
        #expect(r.comparisons.contains { $0.metric.name == "revenue_per_user_d7" && $0.test == "welch" })
        #expect(r.comparison("ai", .named("paid_conversion_d7"))?.test == "z-test")
    }

    @Test func theCapIsAppliedBeforeEveryRevenueFigure() throws {
        let capped = try Self.report(), open = try Self.report(cap: nil)
        let c = try #require(capped.control.metric(.revenuePerUser)), o = try #require(open.control.metric(.revenuePerUser))
        #expect(c.cap == 100 && o.cap == nil)
        #expect(c.sum! < o.sum! && c.sum! > 0)
        // Control payers: 40; whales among them (i % 35 == 0): 6, each capped from 500 to 100.
        #expect(abs(o.sum! - c.sum! - 6 * 400) < 1e-9)
        #expect(capped.comparison("ai", .revenuePerUser)?.cap == 100 && open.comparison("ai", .revenuePerUser)?.cap == nil)
        let ltv = try #require(capped.revenueByDay.first?.points[5].revenuePerUser)
        let ltvOpen = try #require(open.revenueByDay.first?.points[5].revenuePerUser)
        #expect(ltv < ltvOpen)
    }

    @Test func revenueComparisonsCarryBayesianFiguresAndTheVerdictUsesThem() throws {
        let r = try Self.report()
        let c = try #require(r.comparison("ai", .named("revenue_per_user_d7")))
        let chance = try #require(c.chanceToWin), loss = try #require(c.expectedLoss)
        #expect(chance > 0.5 && chance <= 1 && loss >= 0)
        #expect(c.nullReasons["chance_to_win"] == nil)
        #expect(r.decision.reasons.contains { $0.contains("Chance that “ai” earns more per user") }, "\(r.decision.reasons)")
    }

    @Test func crossoverAboveOnePercentIsAWarning() throws {
        let few = try Self.report(crossovers: 2), many = try Self.report(crossovers: 3)
        #expect(few.crossoverUsers == 4 && many.crossoverUsers == 6)
        #expect(few.health.first { $0.code == "crossover" }?.level == .info)       // 4 of 400 = 1.0%
        #expect(many.health.first { $0.code == "crossover" }?.level == .warning)   // 6 of 400 = 1.5%
        #expect(few.health.first { $0.code == "crossover" }?.count == 4 && many.health.first { $0.code == "crossover" }?.count == 6)
        #expect(try Self.report().health.contains { $0.code == "crossover" } == false)
    }

    @Test func everyFormatShowsTheNewFigures() throws {
        let r = try Self.report(crossovers: 3)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        #expect(json["crossover_users"] as? Int == 6)
        #expect(json["secondary"] as? [String] == ["paid_conversion_d7", "refund_rate_d3"])
        #expect((json["revenue_cap"] as? [String: Double]) == ["absolute": 100])
        let comparisons = try #require(json["comparisons"] as? [[String: Any]])
        #expect(comparisons.filter { ($0["metric"] as? String)?.hasPrefix("revenue_per_user") == true }.allSatisfy { $0["cap"] as? Double == 100 })
        #expect(comparisons.filter { $0["metric"] as? String == "paid_conversion" }.allSatisfy { $0["cap"] == nil })
        #expect((json["revenue_by_day"] as? [String: Any])?.count == 2)
        let text = TextReportRenderer.render(r, color: false), md = MarkdownReportRenderer.render(r), html = HTMLReportRenderer.render(r)
        let csv = CSVReportRenderer.render(r)
        for out in [text, md, html] {
            #expect(out.contains("Gross revenue per user, first 7 days") && out.contains("Refunds, first 3 days"))
            #expect(out.contains("capped, each on its own values, before every money figure, at a fixed 100.00 USD: gross revenue per user 100.00 USD"))
        }
        #expect(html.contains("Gross revenue per user by day") && html.contains("aria-label=\"Cumulative gross revenue per exposed user"))
        #expect(csv.contains(",revenue_per_user_d7,") && csv.contains(",refund_rate_d3,"))
    }
}
