import Foundation
import TestSupport
import Testing

/// `abctl report --by` and `?by=` (docs/Segments.md) on simulated data with known structure, through the
/// binary: a treatment that lifts trial starts on iOS only (0.35 → 0.50; Android stays at 0.35), two
/// rare countries (0.5% of users each) that must be pooled into `other`, and a rare guardrail
/// (refunds at 0.5% of payers) whose few events must pool every value for that guardrail alone.
@Suite struct ReportBySegmentTests {
    static let experiment = "seg-lift"
    static let paywall = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
    static let file = """
        { "id": "\(experiment)", "name": "Lift on iOS only", "status": "running", "start": "2026-11-01T00:00:00Z",
          "metrics": { "primary": "trial_start_rate", "guardrails": ["refund_rate"] },
          "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treat", "paywall": \(paywall) } ] }
        """
    static let truth = """
        { "default": { "trial_start": 0.35, "refund": 0.005 },
          "experiments": { "\(experiment)": { "treat": { "trial_start": 0.5, "by": { "platform": { "android": { "trial_start": 0.35 } } } } } },
          "population": { "platform": { "ios": 0.6, "android": 0.4 }, "country": { "US": 0.6, "GB": 0.39, "IS": 0.005, "MT": 0.005 } } }
        """
    static let now = ["ABCTL_NOW": "2026-11-26T00:00:00Z"]

    /// The simulated store the tests below read (none writes to it): simulated once per run, on
    /// first use, instead of once per test.
    static let simulated = Task { try await simulate() }

    /// The simulated store: (the folder that holds it, experiments folder, database).
    static func simulate() async throws -> (TemporaryFolder, String, String) {
        let folder = TemporaryFolder()
        folder.removeAtExit()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: experiments + "/products.json")
        try file.write(toFile: experiments + "/\(experiment).json", atomically: true, encoding: .utf8)
        let truthFile = folder.write("truth.json", truth)
        let db = folder.path + "/seg.sqlite"
        let sim = try await Abctl.run(["simulate", "--users", "20000", "--seed", "27", "--experiments", experiments, "--db", db, "--truth", truthFile])
        #expect(sim.status == 0, "\(sim.stderr)")
        return (folder, experiments, db)
    }

    func report(_ format: String, experiments: String, db: String) async throws -> String {
        let out = TemporaryFolder()
        let toStdout = format == "json" || format == "text"
        let r = try await Abctl.run(["report", Self.experiment, "--db", db, "--experiments", experiments, "--format", format,
                                     "--by", "platform", "--by", "country"] + (toStdout ? [] : ["--out", out.path]), environment: Self.now)
        #expect(r.status == 0, "\(r.stderr)")
        if toStdout { return r.stdout }
        let ext = format == "markdown" ? "md" : format
        return try String(contentsOfFile: "\(out.path)/\(Self.experiment).\(ext)", encoding: .utf8)
    }

    static func cells(_ segments: [String: Any], _ dimension: String) throws -> [[String: Any]] {
        try #require((segments[dimension] as? [String: Any])?["cells"] as? [[String: Any]])
    }

    static func comparison(_ cell: [String: Any], _ metric: String) -> [String: Any]? {
        (cell["comparisons"] as? [[String: Any]])?.first { $0["metric"] as? String == metric && $0["variant"] as? String == "treat" }
    }

    /// What the JSON must say, from the CLI or the endpoint.
    static func check(_ report: [String: Any]) throws {
        let segments = try #require(report["segments"] as? [String: Any])
        #expect(Array(segments.keys).sorted() == ["country", "platform"])
        let platform = try cells(segments, "platform"), country = try cells(segments, "country")
        let users = try #require(report["users"] as? Int)

        // The effect differs by platform: found, in words, and in health; each platform's interval covers its truth.
        let het = try #require((segments["platform"] as? [String: Any])?["heterogeneity_p"] as? [String: [String: Any]])
        let p = try #require(het["trial_start_rate"]?["treat"] as? Double)
        #expect(p < 0.01, "heterogeneity p \(p)")
        let differs = (segments["platform"] as? [String: Any])?["differs"] as? [String] ?? []
        #expect(differs.contains { $0.contains("differs by platform") }, "\(differs)")
        let health = report["health"] as? [[String: Any]] ?? []
        #expect(health.contains { $0["code"] as? String == "heterogeneity" && ($0["message"] as? String)?.contains("platform") == true })
        for (value, truth) in [("ios", 0.15), ("android", 0.0)] {
            let cell = try #require(platform.first { $0["value"] as? String == value }, "\(value)")
            let ci = try #require(comparison(cell, "trial_start_rate")?["absolute_ci"] as? [Double], "\(value)")
            #expect(ci[0] < truth && truth < ci[1], "\(value): \(ci) vs \(truth)")
        }
        // Country does not change the effect: not flagged.
        let countryHet = try #require((segments["country"] as? [String: Any])?["heterogeneity_p"] as? [String: [String: Any]])
        #expect((countryHet["trial_start_rate"]?["treat"] as? Double ?? 0) > 0.01)

        // The rare countries pooled into `other` by users: its users are everyone but the values that stand alone.
        let trialCells = country.filter { comparison($0, "trial_start_rate") != nil }
        #expect(trialCells.map { $0["value"] as? String } == ["US", "GB", "other"], "\(trialCells.map { $0["value"] ?? "" })")
        let other = try #require(trialCells.last)
        #expect(Set(other["pooled_values"] as? [String] ?? []) == ["IS", "MT"])
        let alone = trialCells.dropLast().reduce(0) { $0 + ($1["users"] as? Int ?? 0) }
        #expect(other["users"] as? Int == users - alone, "other \(other["users"] ?? "") vs \(users) - \(alone)")
        let byVariant = try #require(other["users_by_variant"] as? [Int])
        #expect(byVariant.allSatisfy { $0 < 100 } && byVariant.reduce(0, +) == users - alone)

        // The rare guardrail: too few refunds in every value, so its one `other` pools them all (and is the
        // whole experiment's comparison), while the primary keeps its split.
        let comparisons = try #require(report["comparisons"] as? [[String: Any]])
        let whole = try #require(comparisons.first { $0["metric"] as? String == "refund_rate" && $0["variant"] as? String == "treat" })
        for (dimension, list) in [("platform", platform), ("country", country)] {
            let refund = list.filter { comparison($0, "refund_rate") != nil }
            #expect(refund.count == 1 && refund[0]["value"] as? String == "other", "\(dimension): \(refund.map { $0["value"] ?? "" })")
            #expect(refund.first?["users"] as? Int == users)
            let diff = refund.first.flatMap { comparison($0, "refund_rate")?["absolute_diff"] as? Double }
            #expect(diff != nil && diff == whole["absolute_diff"] as? Double, "\(dimension): \(String(describing: diff)) vs \(whole["absolute_diff"] ?? "")")
            let hetRefund = (segments[dimension] as? [String: Any])?["heterogeneity_p"] as? [String: [String: Any]]
            #expect(hetRefund?["refund_rate"]?["treat"] is NSNull)
            #expect(list.filter { comparison($0, "trial_start_rate") != nil }.count >= 2, "\(dimension): the primary is still split")
        }
    }

    @Test func theJSONFindsTheHeterogeneityAndPoolsRightly() async throws {
        let (_, experiments, db) = try await Self.simulated.value
        let json = try await report("json", experiments: experiments, db: db)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        try Self.check(report)
        // Segments never change the verdict: the same decision as without --by.
        let plain = try await Abctl.run(["report", Self.experiment, "--db", db, "--experiments", experiments, "--format", "json"], environment: Self.now)
        let without = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect((without["decision"] as? [String: Any])?["verdict"] as? String == (report["decision"] as? [String: Any])?["verdict"] as? String)
        #expect(without["segments"] == nil)
    }

    @Test func everyFormatCarriesTheSegments() async throws {
        let (_, experiments, db) = try await Self.simulated.value
        let text = try await report("text", experiments: experiments, db: db)
        #expect(text.contains("BY PLATFORM") && text.contains("BY COUNTRY"))
        #expect(text.contains("differs by platform") && text.contains("never change the verdict"))
        #expect(text.contains("other (IS, MT)") || text.contains("other (MT, IS)"), "\(text)")
        let markdown = try await report("markdown", experiments: experiments, db: db)
        #expect(markdown.contains("## By platform") && markdown.contains("## By country"))
        #expect(markdown.contains("differs by platform") && markdown.contains("never change the verdict"))
        let html = try await report("html", experiments: experiments, db: db)
        #expect(html.contains("By platform") && html.contains("By country"))
        #expect(html.contains("difference to the control by platform"), "a forest plot per dimension")
        #expect(html.contains("never change the verdict"))
        let csv = try await report("csv", experiments: experiments, db: db)
        let lines = csv.split(separator: "\r\n").map(String.init)
        let header = try #require(lines.first?.split(separator: ",").map(String.init))
        let dimension = try #require(header.firstIndex(of: "dimension")), value = try #require(header.firstIndex(of: "value"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        // The effect over time has rows of its own (dimension `timeline`), not a segment's.
        let segmentRows = rows.filter { $0.count > value && !$0[dimension].isEmpty && $0[dimension] != "timeline" }
        #expect(Set(segmentRows.map { $0[dimension] }) == ["platform", "country"])
        #expect(Set(segmentRows.filter { $0[dimension] == "platform" }.map { $0[value] }).isSuperset(of: ["ios", "android", "other"]))
    }

    @Test func theEndpointGivesTheSameSegments() async throws {
        let (_, experiments, db) = try await Self.simulated.value
        let cli = try await Abctl.run(["report", Self.experiment, "--db", db, "--experiments", experiments, "--format", "json",
                                       "--by", "platform", "--by", "country"], environment: Self.now)
        let fromCLI = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        let server = try await ServeProcess.start(environment: Self.now, database: db) { folder in
            try Self.file.write(toFile: folder + "/\(Self.experiment).json", atomically: true, encoding: .utf8)
        }
        let reply = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?by=platform&by=country")
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        let report = try #require(reply.json)
        try Self.check(report)
        let a = try JSONSerialization.data(withJSONObject: report["segments"] ?? [:], options: [.sortedKeys])
        let b = try JSONSerialization.data(withJSONObject: fromCLI["segments"] ?? [:], options: [.sortedKeys])
        #expect(a == b, "the endpoint's segments are the CLI's")
        // Comma-separated is the same; an unknown dimension is 400 naming it; min_segment_users moves the pooling.
        let comma = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?by=platform,country")
        #expect(try JSONSerialization.data(withJSONObject: comma.json?["segments"] ?? [:], options: [.sortedKeys]) == a)
        let unknown = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?by=planet")
        #expect(unknown.status == 400 && unknown.text.contains("planet"), "\(unknown.text)")
        let low = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?by=country&min_segment_users=20")
        let lowCells = try Self.cells(try #require(low.json?["segments"] as? [String: Any]), "country")
        let trialValues = lowCells.filter { Self.comparison($0, "trial_start_rate") != nil }.compactMap { $0["value"] as? String }
        #expect(Set(trialValues).isSuperset(of: ["US", "GB", "IS", "MT"]), "with 20 users enough, the rare countries stand alone: \(trialValues)")
        // Every query parameter reaches the report through the real server (libmicrohttpd keeps them apart
        // from the path): percent-encoded times narrow it, an unknown parameter is 400.
        let since = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?since=2026-11-10T00%3A00%3A00Z&by=platform")
        #expect(since.status == 200 && (since.json?["users"] as? Int ?? .max) < (report["users"] as? Int ?? 0), "\(since.text.prefix(200))")
        #expect(since.json?["since"] as? String == "2026-11-10T00:00:00Z")
        let bogus = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?bogus=1")
        #expect(bogus.status == 400 && bogus.text.contains("bogus"), "\(bogus.text.prefix(200))")
        server.signal(SIGTERM)
        #expect(await server.exit(within: .seconds(20)) == 0)
    }
}
