import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// The report reads right, in every format: no float noise in money, no "a decision can
/// be expected by" after a stop, no escaped "<" in Markdown prose, chart labels that fit and stay
/// told apart. (The survival table's day 0 is checked against lifelines in OracleReportTests.)
@Suite struct ReportReadsRightTests {
    typealias F = Fixtures

    func formats(_ r: Report) -> [String] {
        [TextReportRenderer.render(r, color: false), MarkdownReportRenderer.render(r), HTMLReportRenderer.render(r)]
    }

    @Test func aStopIsNotFollowedByWhenADecisionCanBeExpected() {
        var r = F.report(verdict: .stop)
        r.decision.eta = r.asOf.addingTimeInterval(40 * 86_400)
        for out in formats(r) { #expect(!out.contains("can be expected"), "\(out.prefix(300))") }
        // Still running, the date is the news.
        r.decision.verdict = .keepRunning
        for out in formats(r) { #expect(out.contains("A decision can be expected by")) }
    }

    @Test func markdownProseShowsALessThanSignAsWritten() {
        var r = F.report()
        r.decision.reasons = ["“ai” converts more (p < 0.0001), <0.1% lost."]
        let md = MarkdownReportRenderer.render(r)
        #expect(md.contains("(p < 0.0001), <0.1% lost."), "\(md)")
        #expect(!md.contains("&lt; 0") && !md.contains("&lt;0"))
    }

    @Test func theHTMLVerdictNamesTheWinnerOnce() {
        let html = HTMLReportRenderer.render(F.report())
        #expect(html.contains("<h2>Verdict: ship <code>ai</code></h2>"))
        #expect(!html.contains("ship — ship") && !html.contains("text-transform:capitalize"))
    }

    @Test func moneyTotalsHaveNoFloatNoise() throws {
        var r = F.report()
        let slot = try #require(r.variants[0].metrics.firstIndex { $0.metric == .revenuePerUser })
        r.variants[0].metrics[slot].sum = 129807.96000000702
        r.variants[0].metrics[slot].cap = 59.99000000000007
        let json = JSONReportRenderer.render(r)
        #expect(json.contains("\"sum\":129807.96,") && !json.contains("129807.96000000702"))
        #expect(json.contains("\"cap\":59.99") && !json.contains("59.99000000000007"))
        let csv = CSVReportRenderer.render(r)
        #expect(csv.contains(",59.99,") && !csv.contains("59.99000000000007"))
    }

    /// "0.0% still to come" beside a realized figure that is not final, or a "100.0%" chance of
    /// being best, contradicts the line it sits in: a share rounds to none or all only when it is.
    @Test func aShareNeverRoundsAFewToNoneOrNearlyAllToAll() {
        #expect(Wording.share(0.000024, digits: 1) == "under 0.1%")
        #expect(Wording.share(0, digits: 1) == "0.0%")
        #expect(Wording.share(0.4321, digits: 1) == "43.2%")
        #expect(Wording.share(0.99996, digits: 1) == "over 99.9%")
        #expect(Wording.share(1, digits: 1) == "100.0%")
        #expect(Wording.share(0.004) == "under 1%")
        #expect(Wording.share(0.995) == "over 99%")
    }

    @Test func forestLabelsAreWholeOrCutInTheMiddleAndNeverAlike() throws {
        var r = F.report()
        for days in [14, 10] {
            let m = try #require(Metric(name: "paid_conversion_d\(days)"))
            r.comparisons.append(ComparisonResult(variant: "a-rather-long-treatment-name", metric: m, absoluteDiff: 0.01, absoluteCI: Bounds(0, 0.02),
                                                  relativeLift: 0.05, relativeCI: Bounds(-0.01, 0.1), pValue: 0.1, test: "z-test"))
        }
        let labels = try Self.texts(SVGCharts.forestPlot(r), cls: "label")
        // The fixture's Day-0 comparison has no lift, so it is not plotted: three rows.
        #expect(labels.count == 3 && Set(labels).count == 3, "\(labels)")
        #expect(labels.contains("ai · Paid conversion"), "\(labels)")
        #expect(labels.filter { $0.hasSuffix("first 14 days") }.count == 1 && labels.filter { $0.hasSuffix("first 10 days") }.count == 1, "\(labels)")
    }

    /// The y ticks sit right-aligned 6 units left of the plot; the rotated axis title takes the first 20
    /// units: the widest tick label ("10.00 USD") must fit between them.
    @Test func moneyTicksFitBesideTheAxisTitle() throws {
        let svg = SVGCharts.lineChart(series: [(name: "control", color: "#000", points: [(0, 0), (30, 9.5)], step: false)], xMax: 30, yMin: 0, yMax: 10,
                                      xLabel: "days", yLabel: "revenue per user", aria: "revenue", yTick: { Wording.money($0, in: "USD") })
        let ticks = try Self.ticks(svg)
        let widest = try #require(ticks.first { $0.text == "10.00 USD" })
        #expect(widest.x - SVGCharts.textWidth(widest.text, size: 11) >= 20, "\(widest)")
    }

    /// Every tick label of every chart in the demo's HTML reports (Reports/, what `make demo` writes
    /// and DemoStoryTests holds byte for byte) lies inside its chart by the layout's width estimate:
    /// the by-country chart's last tick, centred at the plot's edge, was cut to "+10.00 p".
    @Test func everyTickOfTheDemoReportsFitsItsChart() throws {
        var reports = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { reports.deleteLastPathComponent() }
        reports.appendPathComponent("Reports")
        let files = try FileManager.default.contentsOfDirectory(atPath: reports.path).filter { $0.hasSuffix(".html") && $0 != "index.html" }
        #expect(files.count >= 5, "\(files)")
        let svgs = try Regex("<svg class=\"chart\" viewBox=\"0 0 ([0-9.]+) [0-9.]+\"(.*?)</svg>")
        var checked = 0
        for file in files {
            let html = try String(contentsOf: reports.appendingPathComponent(file), encoding: .utf8)
            for svg in html.matches(of: svgs) {
                let width = try #require(svg.output[1].substring.flatMap { Double($0) })
                for (text, from, to) in try Self.textSpans(String(svg.output[2].substring ?? ""), cls: "tick", size: 11) {
                    #expect(from >= 0 && to <= width, "\(file): tick '\(text)' spans \(from)...\(to) in a chart \(width) wide")
                    checked += 1
                }
            }
        }
        #expect(checked > 100, "only \(checked) ticks found: the pattern no longer matches the charts")
    }

    /// A bandit's allocation table: the empty periods after the last arrival, under the same weights,
    /// share one row; a period that drew users keeps its own, even with the same weights.
    @Test func emptyPeriodsUnderTheSameWeightsShareARow() {
        let day = 86_400.0
        func period(_ i: Int, _ weights: [Double], _ users: [Int], _ rule: String) -> AllocationResult.Period {
            AllocationResult.Period(index: i, from: Date(timeIntervalSince1970: Double(i) * day), to: nil, weights: weights, users: users, rule: rule)
        }
        let learned = [0.3, 0.7]
        let periods = [period(0, [0.5, 0.5], [10, 10], "first"), period(1, learned, [3, 7], "learned"), period(2, learned, [4, 6], "learned"),
                       period(3, learned, [0, 0], "learned"), period(4, learned, [0, 0], "carried"), period(5, learned, [0, 0], "carried"),
                       period(6, learned, [0, 0], "carried"), period(7, [0.2, 0.8], [0, 0], "carried")]
        let runs = ReportDocument.periodRuns(periods).map { $0.map(\.index) }
        #expect(runs == [[0], [1], [2], [3], [4, 5, 6], [7]], "\(runs)")
    }

    /// Each one-line `<text>` of `svg` whose class matches the pattern `cls`: its text and where it begins
    /// and ends by the layout's width estimate at `size` px, as its `text-anchor` places it.
    static func textSpans(_ svg: String, cls: String, size: Double) throws -> [(text: String, from: Double, to: Double)] {
        let regex = try Regex("<text x=\"([0-9.]+)\" y=\"[0-9.]+\"(?: text-anchor=\"(start|middle|end)\")? class=\"\(cls)\">([^<]*)</text>")
        return try svg.matches(of: regex).map { m in
            let x = try #require(m.output[1].substring.flatMap { Double($0) })
            let text = String(m.output[3].substring ?? "").replacingOccurrences(of: "&amp;", with: "&")
            let w = SVGCharts.textWidth(text, size: size)
            return switch m.output[2].substring {
            case "middle"?: (text, x - w / 2, x + w / 2)
            case "end"?: (text, x - w, x)
            default: (text, x, x + w)
            }
        }
    }

    /// The text of every `<text … class="CLS">…</text>`.
    static func texts(_ svg: String, cls: String) throws -> [String] {
        let regex = try Regex("class=\"\(cls)\">([^<]*)</text>")
        return svg.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) }
    }

    static func ticks(_ svg: String) throws -> [(x: Double, text: String)] {
        let regex = try Regex("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" text-anchor=\"end\" class=\"tick\">([^<]*)</text>")
        return svg.matches(of: regex).compactMap { m in
            guard let x = m.output[1].substring.flatMap({ Double($0) }), let t = m.output[2].substring else { return nil }
            return (x, String(t))
        }
    }
}
