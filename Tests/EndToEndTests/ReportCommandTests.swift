import Foundation
import TestSupport
import Testing

/// `abctl report` end to end: the oracle events ingested into a fresh store, then reported in every format.
@Suite struct ReportCommandTests {
    static let oracle = Abctl.packageRoot + "/Tests/ReportingTests/Fixtures/oracle"
    static let now = ["ABCTL_NOW": "2026-12-31T00:00:00Z"]

    /// A folder with the oracle experiment (renamed when asked), its products and a store holding the oracle events.
    func storeFolder(name: String? = nil) async throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        var experiment = try String(contentsOfFile: Self.oracle + "/experiments/oracle-report.json", encoding: .utf8)
        if let name {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            experiment = experiment.replacingOccurrences(of: #""name": "Oracle: <b>three</b> paywalls & a \"guard\"""#, with: "\"name\": \"\(escaped)\"")
        }
        folder.write("Experiments/oracle-report.json", experiment)
        try FileManager.default.copyItem(atPath: Self.oracle + "/experiments/products.json", toPath: folder.path + "/Experiments/products.json")
        let r = try await Abctl.run(["ingest", Self.oracle + "/events.ndjson", "--db", "abctl.sqlite"], in: folder.path)
        #expect(r.status == 0, "\(r.stderr)")
        return folder
    }

    @Test func jsonToStdout() async throws {
        let folder = try await storeFolder()
        let r = try await Abctl.run(["report", "oracle-report", "--format", "json"], in: folder.path, environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(obj["experiment"] as? String == "oracle-report")
        #expect(obj["generated_at"] as? String == "2026-12-31T00:00:00Z")
        #expect(obj["users"] as? Int == 3000)
        // Two treatments × (9 metrics of the table + 3 horizon metrics the file names as secondary
        // + the 2 mature forms the verdict reads: paid_conversion_d10, trial_cancel_rate_d10).
        #expect((obj["comparisons"] as? [Any])?.count == 2 * 14)
    }

    @Test func everyExperimentWithDataByDefault() async throws {
        let folder = try await storeFolder()
        let r = try await Abctl.run(["report"], in: folder.path, environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("(oracle-report)"))
        #expect(r.stdout.contains("VERDICT:"))
        #expect(!r.stdout.contains("\u{1B}["), "NO_COLOR is set: no colour")
    }

    @Test func htmlGoesToReportsFolder() async throws {
        let folder = try await storeFolder()
        let r = try await Abctl.run(["report", "--format", "html"], in: folder.path, environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Reports/oracle-report.html\n")
        let html = try String(contentsOfFile: folder.path + "/Reports/oracle-report.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("Oracle: &lt;b&gt;three&lt;/b&gt; paywalls &amp; a &quot;guard&quot;"))
    }

    @Test func outFolderForMarkdownAndCSV() async throws {
        let folder = try await storeFolder()
        for (format, ext) in [("markdown", "md"), ("csv", "csv"), ("json", "json")] {
            let r = try await Abctl.run(["report", "oracle-report", "--format", format, "--out", "out"], in: folder.path, environment: Self.now)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.path + "/out/oracle-report.\(ext)"))
        }
        let csv = try String(contentsOfFile: folder.path + "/out/oracle-report.csv", encoding: .utf8)
        // Nine table metrics, three the file names, and the mature forms the verdict reads
        // (paid_conversion_d10, trial_cancel_rate_d10: the 7-day trial + 3 days' grace), for three
        // variants; then the forecast's rows per variant, gross and proceeds (its arms have payers).
        // Then the effect over time: one row per timeline point and treatment (dimension `timeline`).
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let header = try #require(lines.first?.split(separator: ",").map(String.init))
        let dimension = try #require(header.firstIndex(of: "dimension"))
        let isTimeline = { (line: String) in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            return cells.count > dimension && cells[dimension] == "timeline"
        }
        let rows = lines.filter { !isTimeline($0) }, timelineRows = lines.filter(isTimeline)
        let expectedRows: Int = 1 + 3 * 14 + 3 + 3
        #expect(rows.count == expectedRows)
        #expect(rows.suffix(6).prefix(3).allSatisfy { $0.contains(",revenue_per_user_forecast_d365,") && $0.contains(",gross,") })
        #expect(rows.suffix(3).allSatisfy { $0.contains(",proceeds_per_user_forecast_d365,") && $0.contains(",proceeds") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + "/out/oracle-report.json"))) as? [String: Any])
        let points = try #require((json["timeline"] as? [String: Any])?["points"] as? [[String: Any]])
        #expect(!points.isEmpty && timelineRows.count == points.count * 2, "two treatments a point: \(timelineRows.count) rows, \(points.count) points")
    }

    @Test func scriptInTheNameShowsAsText() async throws {
        let folder = try await storeFolder(name: "<script>alert(1)</script>")
        let r = try await Abctl.run(["report", "oracle-report", "--format", "html"], in: folder.path, environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: folder.path + "/Reports/oracle-report.html", encoding: .utf8)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script"))
    }

    @Test func untilReadsTheDataAsOfThen() async throws {
        let folder = try await storeFolder()
        let r = try await Abctl.run(["report", "oracle-report", "--format", "json", "--since", "2026-12-01", "--until", "2026-12-15T00:00:00Z"], in: folder.path, environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let users = try #require(obj["users"] as? Int)
        #expect(users > 1000 && users < 2000)
        #expect((obj["health"] as? [[String: Any]])?.contains { ($0["code"] as? String) == "window" } == true)
    }

    @Test func errorsAndExitCodes() async throws {
        let folder = try await storeFolder()
        let unknown = try await Abctl.run(["report", "oracle-reprt"], in: folder.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Did you mean 'oracle-report'?"))
        // Far from every id: no guess, but the experiments there are, so the next try can be right.
        let far = try await Abctl.run(["report", "paywall-test"], in: folder.path)
        #expect(far.status == 2)
        #expect(far.stderr.contains("no experiment 'paywall-test' in the experiment folder. Experiments: oracle-report."), "\(far.stderr)")
        #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
        // Found before the store is opened: a wrong id is the thing to fix first.
        let noStore = try await Abctl.run(["report", "trial-length", "--db", "missing.sqlite"], in: folder.path)
        #expect(noStore.status == 2, "\(noStore.stderr)")
        let shipped = try await Abctl.run(["report", "trial-length", "--db", "missing.sqlite", "--experiments", Abctl.packageRoot + "/Experiments"], in: folder.path)
        #expect(shipped.status == 2)
        #expect(shipped.stderr.contains("no experiment 'trial-length' in the experiment folder. Did you mean 'chorus-trial-length'? "
            + "Experiments: chorus-discount-framing, chorus-holdout, chorus-paywall-copy, chorus-trial-length, chorus-voice."), "\(shipped.stderr)")
        let badDate = try await Abctl.run(["report", "--since", "yesterday"], in: folder.path)
        #expect(badDate.status == 2)
        let badAlpha = try await Abctl.run(["report", "--alpha", "2"], in: folder.path)
        #expect(badAlpha.status == 2)
        let noDB = try await Abctl.run(["report", "--db", "missing.sqlite"], in: folder.path)
        #expect(noDB.status == 3)
        #expect(noDB.stderr.hasPrefix("abctl: error: no database"))
        let help = try await Abctl.run(["report", "--help"], in: folder.path)
        #expect(help.status == 0 && help.stdout.contains("USAGE: abctl report"))
    }
}
