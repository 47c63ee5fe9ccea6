import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// The HTML report reads on a 390 px phone, with the keyboard alone and with a screen reader: each
/// chart drawn for a screen and for a phone with its labels whole, each wide table in a named box a
/// keyboard reaches, each chart's figures in a table, a bandit's weights at a glance. (The browser
/// test, Tests/Browser, measures the same pages as drawn.)
@Suite struct ReportOnAPhoneTests {
    typealias F = Fixtures

    /// A report with a long arm name and long metric names, so labels have to find room.
    static func crowded() throws -> Report {
        var r = F.report()
        for days in [14, 10] {
            let m = try #require(Metric(name: "paid_conversion_d\(days)"))
            r.comparisons.append(ComparisonResult(variant: "a-rather-long-treatment-name", metric: m, absoluteDiff: 0.01, absoluteCI: Bounds(0, 0.02),
                                                  relativeLift: 0.05, relativeCI: Bounds(-0.01, 0.1), pValue: 0.1, test: "z-test"))
        }
        return r
    }

    /// Every `<svg class="chart" …>…</svg>` in `html` with the width of its viewBox.
    static func charts(_ html: String) throws -> [(width: Double, svg: String)] {
        let regex = try Regex(#"<svg class="chart" viewBox="0 0 ([0-9.]+) [0-9.]+"(.*?)</svg>"#)
        return html.matches(of: regex).compactMap { m in
            guard let w = m.output[1].substring.flatMap({ Double($0) }) else { return nil }
            return (w, String(m.output[0].substring ?? ""))
        }
    }

    @Test func everyChartIsDrawnForAScreenAndForAPhone() throws {
        let html = HTMLReportRenderer.render(try Self.crowded())
        let widths = try Self.charts(html).map(\.width)
        #expect(widths.filter { $0 == SVGCharts.wide }.count == 3 && widths.filter { $0 == SVGCharts.narrow }.count == 3, "\(widths)")
        #expect(html.components(separatedBy: "<div class=\"chart-wide\">").count == 4)
        #expect(html.components(separatedBy: "<div class=\"chart-narrow\">").count == 4)
        // The phone's is shown below 640 px, the screen's above; neither shrinks below its box.
        #expect(html.contains("@media (max-width:640px){.chart-wide{display:none}.chart-narrow{display:block}}"))
        #expect(!html.contains("min-width:560px"))
    }

    /// Every text of a narrow chart lies inside its viewBox by the layout's width estimate, and a
    /// narrow forest plot writes each label whole on a line of its own.
    @Test func aPhonesChartKeepsEveryLabelWholeAndInside() throws {
        let r = try Self.crowded()
        let narrow = SVGCharts.forestPlot(r, width: SVGCharts.narrow)
        // A label too long for one line takes two (each a <tspan>), never cut.
        let labels = narrow.matches(of: try Regex(#"<text [^>]*class="label">(.*?)</text>"#)).map { m in
            String(m.output[1].substring ?? "").replacingOccurrences(of: #"<tspan[^>]*>"#, with: " ", options: .regularExpression)
                .replacingOccurrences(of: "</tspan>", with: "").trimmingCharacters(in: .whitespaces)
        }
        #expect(labels.count == 3, "\(labels)")
        #expect(labels.contains("a-rather-long-treatment-name · Paid conversion, first 14 days"), "\(labels)")
        #expect(!labels.contains { $0.contains("…") }, "\(labels)")
        var checked = 0
        for (width, svg) in try Self.charts(HTMLReportRenderer.render(r)) where width == SVGCharts.narrow {
            for (text, from, to) in try ReportReadsRightTests.textSpans(svg, cls: "[a-z]+", size: 12) {
                #expect(from >= 0 && to <= width, "'\(text)' spans \(from)...\(to) in a chart \(width) wide")
                checked += 1
            }
        }
        #expect(checked > 20, "only \(checked) texts found")
    }

    @Test func aLongAxisTitleWrapsRatherThanLeavesTheChart() {
        let lines = SVGCharts.wrap("relative lift against the control (square: primary metric)", width: 352, size: 12)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.allSatisfy { SVGCharts.textWidth($0, size: 12) <= 352 }, "\(lines)")
        #expect(lines.joined(separator: " ") == "relative lift against the control (square: primary metric)")
    }

    @Test func aLegendWrapsOntoRowsWithinTheWidth() {
        let names = ["warm-and-kind", "dawn-chorus", "learn-the-birds", "calm-walks"].map { (name: $0, color: "#000") }
        let legend = SVGCharts.legend(names, left: 56, width: SVGCharts.narrow, top: 300)
        #expect(legend.extra >= 16, "\(legend.svg)")
        let xs = try! Regex(#"<text x="([0-9.]+)" y="[0-9.]+" class="tick">([^<]*)</text>"#)
        for m in legend.svg.matches(of: xs) {
            let x = Double(m.output[1].substring!)!, text = String(m.output[2].substring!)
            #expect(x + SVGCharts.textWidth(text, size: 11) <= SVGCharts.narrow, "\(text) at \(x)")
        }
    }

    @Test func everyTableScrollsInANamedBoxAKeyboardReaches() {
        let html = HTMLReportRenderer.render(F.report())
        let boxes = html.components(separatedBy: "<div class=\"scroll\"").count - 1
        #expect(boxes >= 4)
        #expect(html.components(separatedBy: "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"").count - 1 == boxes)
        #expect(html.contains("aria-label=\"Metrics by variant\""))
        // A section with two tables numbers them, so each box has a name of its own.
        #expect(html.contains("aria-label=\"Against the control (control), table 1\""))
        #expect(html.contains("aria-label=\"Against the control (control), table 2\""))
        #expect(html.contains(":focus-visible{outline:3px solid var(--link)"))
    }

    /// The cumulative conversion chart has no other table: its figures at days 1, 3, 7, 14 and 30 are one.
    @Test func aChartsFiguresAreInATableBesideIt() {
        let r = F.report()
        let html = HTMLReportRenderer.render(r)
        #expect(html.contains("<th>variant</th><th>day 1</th><th>day 3</th><th>day 7</th><th>day 14</th><th>day 30</th>"))
        // The fixture's "ai" converts 0.002 a day: 2.8% by day 14, 6.0% by day 30.
        #expect(html.contains("<tr><td>ai</td><td class=\"num\">0.2%</td><td class=\"num\">0.6%</td><td class=\"num\">1.4%</td><td class=\"num\">2.8%</td><td class=\"num\">6.0%</td></tr>"))
        // Every chart is an image with a text alternative.
        for (_, svg) in try! Self.charts(html) { #expect(svg.contains("role=\"img\" aria-label=\"")) }
    }

    @Test func aBanditsWeightsNowOpenItsAllocation() {
        let day = 86_400.0
        let a = AllocationResult(variants: ["warm", "dawn", "calm"], periods: [
            .init(index: 0, from: Date(timeIntervalSince1970: 1_793_577_600), to: nil, weights: [1, 1, 1], users: [5, 5, 5], rule: "first"),
            .init(index: 1, from: Date(timeIntervalSince1970: 1_793_577_600 + day), to: nil, weights: [0.5, 0.3, 0.2], users: [5, 3, 2], rule: "learned"),
        ], chanceBest: nil, chanceBestNullReason: "test", metric: .paidConversion)
        #expect(Wording.weightsNow(a) == "Weights now (period 1, from 2026-11-03): warm 50%, dawn 30%, calm 20%.")
    }
}
