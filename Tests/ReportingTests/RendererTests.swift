import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

@Suite struct RendererTests {
    func parse(_ json: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func jsonHasTheSpecShape() throws {
        let obj = try parse(JSONReportRenderer.render(Fixtures.report()))
        for key in ["experiment", "generated_at", "users", "srm", "variants", "comparisons", "survival", "copy_sources", "decision"] {
            #expect(obj[key] != nil, "missing \(key)")
        }
        #expect(obj["experiment"] as? String == "chorus-paywall-copy")
        #expect(obj["generated_at"] as? String == "2026-12-21T00:00:00Z")
        let srm = try #require(obj["srm"] as? [String: Any])
        #expect(srm["p_value"] as? Double == 0.41 && srm["flagged"] as? Bool == false)
        let variants = try #require(obj["variants"] as? [[String: Any]])
        #expect(variants.map { $0["key"] as? String } == ["control", "ai"])
        let metrics = try #require(variants[0]["metrics"] as? [String: [String: Any]])
        #expect(Set(metrics.keys) == Set(Metric.baseMetrics.map(\.name)))
        let paid = try #require(metrics["paid_conversion"])
        #expect(paid["count"] as? Int == 350 && paid["rate"] as? Double == 0.035)
        #expect((paid["ci"] as? [Double])?.count == 2)
        let comps = try #require(obj["comparisons"] as? [[String: Any]])
        let keys = ["variant", "metric", "absolute_diff", "absolute_ci", "relative_lift", "relative_ci", "p_value", "p_value_adjusted", "chance_to_win", "expected_loss"]
        for c in comps { for k in keys { #expect(c.keys.contains(k), "comparison lacks \(k)") } }
        // A null number carries its reason.
        #expect(comps[1]["relative_lift"] is NSNull)
        #expect((comps[1]["null_reasons"] as? [String: String])?["relative_lift"] != nil)
        let survival = try #require(obj["survival"] as? [String: Any])
        #expect(survival["days"] as? [Int] == [0, 1, 3, 7, 14, 30])
        #expect(((survival["variants"] as? [String: Any])?["control"] as? [Double])?.first == 0.9)
        #expect(survival["log_rank_p"] as? Double == 0.2)
        #expect((obj["copy_sources"] as? [String: [String: Int]])?["ai"] == ["on_device": 8000, "fallback": 2000])
        let decision = try #require(obj["decision"] as? [String: Any])
        #expect(decision["verdict"] as? String == "ship")
        #expect((decision["reasons"] as? [String])?.isEmpty == false)
    }

    @Test func jsonNeverHoldsNonFiniteNumbers() throws {
        var r = Fixtures.report()
        r.comparisons[0].pValue = .nan
        r.comparisons[0].relativeLift = .infinity
        r.comparisons[0].absoluteCI = Bounds(-.infinity, 1)
        let text = JSONReportRenderer.render(r)
        #expect(!text.contains("nan") && !text.lowercased().contains("infinity"))
        let obj = try parse(text)
        let c = try #require((obj["comparisons"] as? [[String: Any]])?.first)
        #expect(c["p_value"] is NSNull && c["relative_lift"] is NSNull && c["absolute_ci"] is NSNull)
    }

    @Test func htmlEscapesExperimentText() {
        let r = Fixtures.report(name: "<script>alert(1)</script>", id: "x\"><img src=x onerror=alert(2)>")
        let html = HTMLReportRenderer.render(r)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
    }

    @Test func htmlIsSelfContainedAndResponsive() {
        let html = HTMLReportRenderer.render(Fixtures.report())
        #expect(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(!html.contains("<link") && !html.contains(" src="))
        // Three inline charts (forest plot, cumulative conversion, survival), each drawn for a screen and for a phone.
        #expect(html.components(separatedBy: "<svg ").count - 1 == 6)
        #expect(html.contains("Verdict: ship"))
    }

    @Test func textHasColourOnlyWhenAsked() {
        let plain = TextReportRenderer.render(Fixtures.report(), color: false)
        let coloured = TextReportRenderer.render(Fixtures.report(), color: true)
        #expect(!plain.contains("\u{1B}["))
        #expect(coloured.contains("\u{1B}["))
        #expect(plain.contains("VERDICT: SHIP \"ai\""))
        // Columns line up: the last column is right-aligned, so every row of the metrics table is as long as its header.
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try! #require(lines.firstIndex { $0.hasPrefix("  metric ") })
        let table = lines[start...].prefix { !$0.isEmpty }
        #expect(table.count == 2 + 1 + Metric.baseMetrics.count)
        #expect(Set(table.map(\.count)).count == 1, "\(table.joined(separator: "\n"))")
    }

    @Test func textStripsControlCharacters() {
        let plain = TextReportRenderer.render(Fixtures.report(name: "evil\u{1B}[31mred"), color: false)
        #expect(!plain.contains("\u{1B}"))
    }

    @Test func markdownEscapesTables() {
        let md = MarkdownReportRenderer.render(Fixtures.report(name: "a|b <b>x</b>"))
        #expect(md.contains("# a\\|b &lt;b>x&lt;/b>"))
        #expect(md.contains("| metric | control (control) | ai |"))
    }

    /// Markdown escapes only what Markdown reads as syntax, so a report pasted into a chat reads as written.
    @Test func markdownEscapesOnlyWhatMarkdownNeeds() {
        let md = MarkdownReportRenderer.render(Fixtures.report(name: "Save 20% (annual) & more! #1 + paid_conversion > 5 *now* [x] `y`"))
        #expect(md.contains("# Save 20% (annual) & more! #1 + paid_conversion > 5 \\*now\\* \\[x\\] \\`y\\`"), "\(md.prefix(200))")
        // The verdict's heading names the winner once.
        #expect(md.contains("## Verdict: ship `ai`\n"))
        #expect(!md.contains("ship — ship"))
        #expect(MarkdownReportRenderer.esc("a &amp; b _c_") == "a &amp;amp; b \\_c\\_")
    }

    /// Every comparison names its direction; the legend and the currency in every format.
    @Test func directionLegendAndCurrencyInEveryFormat() throws {
        let r = Fixtures.report()
        let text = TextReportRenderer.render(r, color: false), md = MarkdownReportRenderer.render(r), html = HTMLReportRenderer.render(r)
        let legend = Wording.legend(r)
        for out in [text, html] { #expect(legend.allSatisfy { out.contains(HTMLReportRenderer.escape($0)) || out.contains($0) }, "\(out.prefix(100))") }
        #expect(md.contains("🔻 clearly worse") && md.contains("in USD per user"))
        for out in [text, md, html] {
            #expect(out.contains("Day-0 cancels (lower is better)"))
            #expect(out.contains("1.25 USD"))
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        #expect(json["currency"] as? String == "USD")
        #expect((json["legend"] as? [String]) == legend)
        let comparisons = try #require(json["comparisons"] as? [[String: Any]])
        #expect(comparisons.map { $0["direction"] as? String } == ["higher_is_better", "lower_is_better"])
        let csv = CSVReportRenderer.render(r).components(separatedBy: "\r\n")
        #expect(csv[0].hasSuffix(",direction,currency,null_reasons"))
        #expect(csv.contains { $0.contains(",day0_cancel_rate,") && $0.contains(",lower_is_better,USD,") })
    }

    @Test func csvRowsAndQuoting() {
        let csv = CSVReportRenderer.render(Fixtures.report(id: "=cmd,\"x\""))
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 2 * Metric.baseMetrics.count)
        #expect(lines[0].hasPrefix("experiment,variant,is_control,metric"))
        #expect(lines[1].hasPrefix("\"'=cmd,\"\"x\"\"\",control,true,trial_start_rate"))
        let aiPaid = try! #require(lines.first { $0.contains(",ai,false,paid_conversion,") })
        #expect(aiPaid.contains(",0.006,0.001,0.011,0.17,0.02,0.32,0.02,0.02,0.99,0.0001,0.2"))
    }
}
