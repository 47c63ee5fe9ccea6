import Foundation
import TestSupport
import Testing

/// `abctl forecast backtest` on a simulated 400-day experiment: its realized revenue and errors match
/// those computed by hand (SQL over the stored events, none of abctl's facts or forecast code) from
/// what the simulation did.
@Suite struct ForecastBacktestTests {
    static let experiment = """
    { "id": "fc", "name": "3-day or 7-day trial, a year on", "status": "running", "start": "2026-01-01T00:00:00Z",
      "forecast": { "horizon_days": 365 },
      "variants": [
        { "key": "trial-3d", "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } } },
        { "key": "trial-7d", "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } } } ] }
    """
    /// Monthly plans only; each payer's churn probability per month from Beta(1.5, 6), the 7-day arm's Beta(1, 3).
    static let truth = """
    { "default": { "annual_share": 0, "trial_start": 0.5, "renewal_churn": { "alpha": 1.5, "beta": 6 } },
      "experiments": { "fc": { "trial-7d": { "renewal_churn": { "alpha": 1, "beta": 3 } } } } }
    """
    static let day: Int64 = 86_400_000_000
    static let start: Int64 = 1_767_225_600 * 1_000_000   // 2026-01-01T00:00:00Z

    /// Per arm, by hand from the events table: users first exposed by `cut − mature`, their revenue in
    /// [exposure, exposure + 365 days) up to `now`, and the share of their 365 days still to come at `now`.
    func byHand(db: String, cut: Int64, now: Int64) async throws -> [String: (users: Int, revenue: Double, toCome: Double)] {
        let mature = cut - 10 * Self.day   // the longest trial (7 days) plus 3 days' grace
        let horizon = 365 * Self.day
        let sql = """
        WITH x AS (SELECT user_id, variant, MIN(ts) AS t0 FROM events WHERE type = 1 AND experiment = 'fc' GROUP BY user_id)
        SELECT x.variant, COUNT(*),
          printf('%.17g', COALESCE((SELECT SUM(CASE WHEN e.type = 7 THEN -abs(e.revenue) ELSE e.revenue END) FROM events e JOIN x y ON e.user_id = y.user_id
                  WHERE y.variant = x.variant AND y.t0 <= \(mature) AND e.revenue IS NOT NULL AND e.type IN (3, 4, 5, 7)
                    AND e.ts >= y.t0 AND e.ts < y.t0 + \(horizon) AND e.ts <= \(now)), 0)),
          printf('%.17g', SUM(MAX(MIN(x.t0 + \(horizon) - \(now), \(horizon)), 0) * 1.0 / \(horizon)))
        FROM x WHERE x.t0 <= \(mature) GROUP BY x.variant;
        """
        let out = try await ChildProcess.run("/usr/bin/sqlite3", ["-readonly", "-separator", ",", db, sql])
        #expect(out.status == 0, "\(out.stderr)")
        var result: [String: (Int, Double, Double)] = [:]
        for line in out.stdout.split(separator: "\n") {
            let f = line.split(separator: ",").map(String.init)
            result[f[0]] = (Int(f[1])!, Double(f[2])!, Double(f[3])!)
        }
        return result
    }

    func backtest(_ folder: TemporaryFolder, now: String, at: [Int]) async throws -> [[String: Any]] {
        let r = try await Abctl.run(["forecast", "backtest", "fc"] + at.flatMap { ["--at", String($0)] } +
                                  ["--format", "json", "--experiments", folder.path + "/exp", "--db", folder.path + "/fc.sqlite"],
                                  environment: ["ABCTL_NOW": now])
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }

    @Test func errorsMatchTheSimulationByHand() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/exp", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: folder.path + "/exp/products.json")
        folder.write("exp/fc.json", Self.experiment)
        let truth = folder.write("truth.json", Self.truth)
        // Users arrive over 40 days; events are observed for 400 days more (2027-02-15).
        let sim = try await Abctl.run(["simulate", "--users", "6000", "--days", "40", "--tail-days", "400", "--seed", "3", "--truth", truth,
                                     "--experiments", folder.path + "/exp", "--db", folder.path + "/fc.sqlite", "--until", "2027-03-17T00:00:00Z"])
        #expect(sim.status == 0, "\(sim.stderr)")
        let db = folder.path + "/fc.sqlite"

        // A year and more on, every cut's users have had their 365 days: errors are final.
        let now = Self.start + 440 * Self.day
        let rows = try await backtest(folder, now: "2027-03-17T00:00:00Z", at: [30, 90])
        #expect(rows.map { $0["at_days"] as? Int } == [30, 90])
        for row in rows {
            let atDays = try #require(row["at_days"] as? Int)
            let hand = try await byHand(db: db, cut: Self.start + Int64(atDays) * Self.day, now: now)
            let arms = try #require(row["arms"] as? [String: [String: Any]])
            #expect(Set(arms.keys) == ["trial-3d", "trial-7d"])
            for (variant, arm) in arms {
                let h = try #require(hand[variant])
                #expect(arm["users"] as? Int == h.users, "\(variant) at \(atDays)")
                let realized = try #require(arm["realized"] as? Double)
                #expect(abs(realized - h.revenue / Double(h.users)) <= 1e-9 * realized, "\(variant) at \(atDays): \(realized) vs \(h.revenue / Double(h.users))")
                #expect(arm["complete"] as? Bool == true && h.toCome == 0)
                if atDays == 30 {
                    // A month in, no renewal has come due for anyone yet: no forecast, and the reason says why.
                    #expect(arm["forecast"] is NSNull && arm["error"] is NSNull)
                    #expect((arm["null_reason"] as? String)?.contains("too few renewals") == true, "\(arm)")
                    continue
                }
                let forecast = try #require(arm["forecast"] as? Double, "\(variant) at \(atDays): \(arm)")
                let error = try #require(arm["error"] as? Double)
                #expect(abs(error - (forecast / (h.revenue / Double(h.users)) - 1)) < 1e-9, "\(variant) at \(atDays)")
                // The truth is the model's own: by day 90 the forecast is within 15% of what came.
                if atDays == 90 { #expect(abs(error) < 0.15, "\(variant): error \(error)") }
                let ci = try #require(arm["ci"] as? [Double])
                #expect(ci[0] <= forecast && forecast <= ci[1])
            }
        }

        // Read 200 days after the start, the cut's users are part-way through their year: the share still
        // to come matches the hand count, and no error is given until it is complete.
        let early = try await backtest(folder, now: "2026-07-20T00:00:00Z", at: [90])
        let hand = try await byHand(db: db, cut: Self.start + 90 * Self.day, now: Self.start + 200 * Self.day)
        let arms = try #require(early.first?["arms"] as? [String: [String: Any]])
        for (variant, arm) in arms {
            let h = try #require(hand[variant])
            #expect(arm["complete"] as? Bool == false && arm["error"] is NSNull)
            let toCome = try #require(arm["still_to_come"] as? Double)
            #expect(abs(toCome - h.toCome / Double(h.users)) < 1e-9, "\(variant): \(toCome) vs \(h.toCome / Double(h.users))")
            #expect(abs((arm["realized"] as? Double ?? 0) - h.revenue / Double(h.users)) <= 1e-9 * h.revenue)
            #expect((arm["null_reason"] as? String)?.contains("still to come") == true)
        }

        // A cut in the future says so; the text form prints a line per arm.
        let future = try await backtest(folder, now: "2026-02-01T00:00:00Z", at: [90])
        #expect((future.first?["null_reason"] as? String)?.contains("still to come") == true)
        let text = try await Abctl.run(["forecast", "backtest", "--at", "90", "--experiments", folder.path + "/exp", "--db", db],
                                     environment: ["ABCTL_NOW": "2027-03-17T00:00:00Z"])
        #expect(text.status == 0 && text.stdout.contains("trial-3d") && text.stdout.contains("trial-7d") && text.stdout.contains("fc: forecast at day 90"), "\(text.stdout)\(text.stderr)")
        let bad = try await Abctl.run(["forecast", "backtest", "--at", "soon", "--experiments", folder.path + "/exp", "--db", db])
        #expect(bad.status == 2 && bad.stderr.contains("--at"))
    }
}

/// The forecast in every report format, and as the primary metric.
@Suite struct ForecastReportTests {
    static let experiment = ForecastBacktestTests.experiment.replacingOccurrences(
        of: #""forecast": { "horizon_days": 365 },"#,
        with: #""forecast": { "horizon_days": 365 }, "metrics": { "primary": "revenue_per_user_forecast_d365" },"#)

    @Test func reportsCarryTheForecastAndTheVerdictReadsIt() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/exp", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Abctl.packageRoot + "/Experiments/products.json", toPath: folder.path + "/exp/products.json")
        folder.write("exp/fc.json", Self.experiment)
        let truth = folder.write("truth.json", ForecastBacktestTests.truth)
        let db = folder.path + "/fc.sqlite"
        let sim = try await Abctl.run(["simulate", "--users", "6000", "--days", "40", "--tail-days", "60", "--seed", "3", "--truth", truth,
                                     "--experiments", folder.path + "/exp", "--db", db])
        #expect(sim.status == 0, "\(sim.stderr)")
        func report(_ format: String) async throws -> String {
            let r = try await Abctl.run(["report", "fc", "--format", format, "--out", folder.path + "/out", "--experiments", folder.path + "/exp", "--db", db],
                                      environment: ["ABCTL_NOW": "2026-03-31T00:00:00Z"])
            #expect(r.status == 0, "\(r.stderr)")
            let ext = ["markdown": "md", "text": "txt"][format] ?? format
            return try String(contentsOfFile: folder.path + "/out/fc.\(ext)", encoding: .utf8)
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await report("json").utf8)) as? [String: Any])
        let forecast = try #require(json["forecast"] as? [String: [String: Any]])
        #expect(Set(forecast.keys) == ["trial-3d", "trial-7d"])
        for (variant, entry) in forecast {
            #expect(entry["horizon_days"] as? Int == 365)
            let value = try #require(entry["revenue_per_user"] as? Double, "\(variant): \(entry)")
            let ci = try #require(entry["ci"] as? [Double])
            #expect(ci[0] <= value && value <= ci[1])
            #expect((entry["users"] as? Int ?? 0) > 2000)
            let monthly = try #require((entry["model"] as? [String: [String: Any]])?["P1M"])
            #expect((monthly["alpha"] as? Double ?? 0) > 0 && (monthly["beta"] as? Double ?? 0) > 0 && (monthly["payers"] as? Int ?? 0) > 100)
        }
        // As the primary metric: a comparison read from the bootstrap, and the verdict says it reads a forecast.
        let comparisons = try #require(json["comparisons"] as? [[String: Any]])
        let c = try #require(comparisons.first { $0["metric"] as? String == "revenue_per_user_forecast_d365" })
        let diff = try #require(c["absolute_diff"] as? Double)
        let f3 = try #require(forecast["trial-3d"]?["revenue_per_user"] as? Double), f7 = try #require(forecast["trial-7d"]?["revenue_per_user"] as? Double)
        #expect(abs(diff - (f7 - f3)) < 1e-9)
        #expect(c["p_value"] is Double && c["absolute_ci"] is [Double])
        let reasons = try #require((json["decision"] as? [String: Any])?["reasons"] as? [String])
        #expect(reasons.contains { $0.contains("is a forecast") }, "\(reasons)")
        // A line per arm in text and Markdown, a row in CSV, the extended curve in HTML.
        for format in ["text", "markdown"] {
            let body = try await report(format)
            #expect(body.contains("trial-3d: ") && body.contains("trial-7d: ") && body.contains("monthly renewals"), "\(format)")
        }
        #expect(try await report("csv").contains(",revenue_per_user_forecast_d365,"))
        let html = try await report("html")
        #expect(html.contains("<h2>Forecast</h2>") && html.contains("stroke-dasharray") && html.contains("fill-opacity=\"0.15\""))
    }
}
