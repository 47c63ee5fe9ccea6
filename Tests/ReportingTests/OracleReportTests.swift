import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// Every number of the JSON report for a fixed data set, checked against `Fixtures/oracle/expected.json`,
/// which `Fixtures/oracle/make_oracle.py` computed from the raw events with scipy, statsmodels and lifelines.
@Suite struct OracleReportTests {
    static let folder: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.path + "/Fixtures/oracle"
    }()
    static let asOf = Date(timeIntervalSince1970: 1_798_675_200)  // 2026-12-31T00:00:00Z

    static func loadExperiment() throws -> Experiment {
        let catalog = try ExperimentFiles.load(directory: folder + "/experiments")
        return try #require(catalog.experiment("oracle-report"))
    }

    static func expected() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The facts the Python script derived from the events (the store-free path).
    static func pythonFacts() throws -> [UserFacts] {
        let text = try String(contentsOfFile: folder + "/facts.ndjson", encoding: .utf8)
        func micros(_ v: Any?) -> Int64? { (v as? NSNumber).map { Int64($0.int64Value) * 1_000_000 } }
        return try text.split(separator: "\n").map { line in
            let o = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return UserFacts.row(experiment: "oracle-report", userID: UserID(o["user_id"] as! String), variant: o["variant"] as! String, firstExposure: micros(o["first_exposure"])!,
                             trialStart: micros(o["trial_start"]), firstPaid: micros(o["first_paid"]), firstConverted: micros(o["first_converted"]),
                             firstCancel: micros(o["first_cancel"]), refunded: micros(o["refunded_at"]),
                             netRevenue: (o["net_revenue"] as! NSNumber).doubleValue,
                             revenueEntries: (o["revenue_entries"] as! [[NSNumber]]).map { RevenueEntry(offset: $0[0].int64Value * 1_000_000, amount: $0[1].doubleValue) },
                             crossedOver: o["crossed_over"] as! Bool,
                             copySource: (o["copy_source"] as? String).flatMap(CopySource.init(rawValue:)), fallbackReason: o["copy_fallback_reason"] as? String,
                             billingIssue: micros(o["billing_issue"]))
        }
    }

    static func report(from rows: [UserFacts]) throws -> [String: Any] {
        var acc = ReportAccumulator(experiment: try loadExperiment(), options: ReportOptions(alpha: 0.05, clock: asOf))
        for row in rows { acc.add(row) }
        let json = JSONReportRenderer.render(try ReportAnalyzer.analyze(acc))
        return try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// CSV and JSON agree figure for figure: every number of every CSV row equals the JSON's (the same
    /// report in every format), and every empty figure has the JSON's reason beside it.
    @Test func csvAndJSONAgreeFigureForFigure() throws {
        var acc = ReportAccumulator(experiment: try Self.loadExperiment(), options: ReportOptions(alpha: 0.05, clock: Self.asOf))
        for row in try Self.pythonFacts() { acc.add(row) }
        let report = try ReportAnalyzer.analyze(acc)
        let json = try #require(JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(report).utf8)) as? [String: Any])
        let lines = CSVReportRenderer.render(report).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let header = lines[0].split(separator: ",").map(String.init)
        let variants = try #require(json["variants"] as? [[String: Any]])
        let comparisons = try #require(json["comparisons"] as? [[String: Any]])
        var checked = 0
        for line in lines.dropFirst() {
            // No quoted fields here except null_reasons, the last column.
            let cells = line.split(separator: ",", maxSplits: header.count - 1, omittingEmptySubsequences: false).map(String.init)
            let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
            let variant = try #require(variants.first { $0["key"] as? String == row["variant"] })
            func same(_ csv: String?, _ value: Any?, _ what: String) {
                // Both are written by JSONValue.format; Foundation's JSON reader may be a few bits off in what it reads.
                if let x = value as? NSNumber { #expect(abs((Double(csv ?? "") ?? .nan) - x.doubleValue) <= 8 * x.doubleValue.ulp, "\(what): csv \(csv ?? "nil") json \(x)") }
                else { #expect(csv == "", "\(what): csv \(csv ?? "nil") json null") }
            }
            // The forecast's own rows (its metric not among the file's) hold the JSON's `forecast` of the variant.
            if let name = row["metric"], name.contains("_per_user_forecast_d"), (variant["metrics"] as? [String: Any])?[name] == nil {
                let f = try #require((json["forecast"] as? [String: [String: Any]])?[row["variant"]!])
                let (value, ci) = name.hasPrefix("proceeds") ? ("proceeds_per_user", "proceeds_ci") : ("revenue_per_user", "ci")
                same(row["rate"], f[value], "\(name).\(value)")
                same(row["ci_lower"], (f[ci] as? [Any])?.first, "\(name).\(ci) lower")
                same(row["ci_upper"], (f[ci] as? [Any])?.last, "\(name).\(ci) upper")
                #expect(row["money"] == (name.hasPrefix("proceeds") ? "proceeds before tax" : "gross") || row["money"] == "proceeds", "\(name): \(row["money"] ?? "")")
                checked += 1
                continue
            }
            // The effect over time: one row per day and treatment, the JSON's point of that day.
            if row["dimension"] == "timeline" {
                let timeline = try #require(json["timeline"] as? [String: Any])
                #expect(row["metric"] == timeline["metric"] as? String)
                let point = try #require((timeline["points"] as? [[String: Any]])?.first { $0["date"] as? String == row["value"] })
                #expect(row["users"] == ((point["users"] as? [String: Int])?[row["variant"]!]).map(String.init))
                let c = try #require((point["comparisons"] as? [String: [String: Any]])?[row["variant"]!])
                same(row["absolute_diff"], c["absolute_diff"], "timeline \(row["value"]!).absolute_diff")
                same(row["absolute_ci_lower"], (c["absolute_ci"] as? [Any])?.first, "timeline \(row["value"]!).absolute_ci lower")
                same(row["absolute_ci_upper"], (c["absolute_ci"] as? [Any])?.last, "timeline \(row["value"]!).absolute_ci upper")
                if let reason = c["null_reason"] as? String { #expect(row["null_reasons"]?.contains(reason) == true) }
                checked += 1
                continue
            }
            let metric = try #require((variant["metrics"] as? [String: [String: Any]])?[row["metric"]!])
            same(row["rate"], metric["rate"], "rate")
            same(row["ci_lower"], (metric["ci"] as? [Any])?.first, "ci_lower")
            same(row["ci_upper"], (metric["ci"] as? [Any])?.last, "ci_upper")
            guard row["is_control"] == "false" else { continue }
            let c = try #require(comparisons.first { $0["variant"] as? String == row["variant"] && $0["metric"] as? String == row["metric"] })
            for field in ["absolute_diff", "relative_lift", "p_value", "p_value_adjusted", "chance_to_win", "expected_loss"] {
                same(row[field], c[field], "\(row["variant"]!)/\(row["metric"]!).\(field)")
                checked += 1
            }
            same(row["relative_ci_lower"], (c["relative_ci"] as? [Any])?.first, "relative_ci_lower")
            same(row["relative_ci_upper"], (c["relative_ci"] as? [Any])?.last, "relative_ci_upper")
            #expect(row["direction"] == c["direction"] as? String)
            #expect(row["currency"] == json["currency"] as? String)
            for (field, reason) in (c["null_reasons"] as? [String: String]) ?? [:] {
                #expect(row["null_reasons"]?.contains(reason) == true, "\(field): \(reason) missing from the CSV")
            }
        }
        #expect(checked > 100)
    }

    @Test func everyNumberMatchesTheOracle() throws {
        try OracleCheck.compare(try Self.report(from: try Self.pythonFacts()), try Self.expected())
    }
}

/// Compares a report JSON with the oracle's expected values, field by field.
enum OracleCheck {
    static func close(_ a: Any?, _ b: Any?, _ what: String, tolerance: Double = 1e-7, sourceLocation: SourceLocation = #_sourceLocation) {
        if b is NSNull {
            #expect(a is NSNull, "\(what): \(String(describing: a)) vs expected null", sourceLocation: sourceLocation)
            return
        }
        guard let x = (a as? NSNumber)?.doubleValue, let y = (b as? NSNumber)?.doubleValue else {
            Issue.record("\(what): \(String(describing: a)) vs expected \(String(describing: b))", sourceLocation: sourceLocation)
            return
        }
        let ok = abs(x - y) <= tolerance * max(1, abs(y))
        #expect(ok, "\(what): \(x) vs expected \(y)", sourceLocation: sourceLocation)
    }

    static func pair(_ a: Any?, _ b: Any?, _ what: String, tolerance: Double = 1e-7) {
        if b is NSNull {
            #expect(a is NSNull, "\(what): \(String(describing: a)) vs expected null")
            return
        }
        let x = a as? [Any], y = b as? [Any]
        guard let x, let y, x.count == 2, y.count == 2 else {
            Issue.record("\(what): \(String(describing: a)) vs expected \(String(describing: b))")
            return
        }
        close(x[0], y[0], what + "[0]", tolerance: tolerance)
        close(x[1], y[1], what + "[1]", tolerance: tolerance)
    }

    static func compare(_ got: [String: Any], _ want: [String: Any]) throws {
        #expect(got["experiment"] as? String == want["experiment"] as? String)
        #expect(got["generated_at"] as? String == want["generated_at"] as? String)
        #expect(got["users"] as? Int == want["users"] as? Int)
        #expect(got["crossover_users"] as? Int == want["crossover_users"] as? Int)
        let srm = try #require(got["srm"] as? [String: Any]), wantSRM = try #require(want["srm"] as? [String: Any])
        close(srm["p_value"], wantSRM["p_value"], "srm.p_value", tolerance: 1e-9)
        close(srm["statistic"], wantSRM["statistic"], "srm.statistic", tolerance: 1e-9)
        #expect(srm["flagged"] as? Bool == wantSRM["flagged"] as? Bool)

        let variants = try #require(got["variants"] as? [[String: Any]]), wantVariants = try #require(want["variants"] as? [[String: Any]])
        #expect(variants.map { $0["key"] as? String } == wantVariants.map { $0["key"] as? String })
        for (v, w) in zip(variants, wantVariants) {
            let key = v["key"] as! String
            #expect(v["users"] as? Int == w["users"] as? Int, "\(key).users")
            let metrics = try #require(v["metrics"] as? [String: [String: Any]])
            // The oracle's events name no store and carry no proceeds: their proceeds are their revenue (no cut).
            var wantMetrics = try #require(w["metrics"] as? [String: [String: Any]])
            wantMetrics["proceeds_per_user"] = wantMetrics["revenue_per_user"]
            #expect(Set(metrics.keys) == Set(wantMetrics.keys))
            for (name, wm) in wantMetrics {
                let m = try #require(metrics[name])
                #expect(m["count"] as? Int == wm["count"] as? Int, "\(key).\(name).count")
                #expect(m["denominator"] as? Int == wm["denominator"] as? Int, "\(key).\(name).denominator")
                close(m["rate"], wm["rate"], "\(key).\(name).rate", tolerance: 1e-12)
                pair(m["ci"], wm["ci"], "\(key).\(name).ci", tolerance: 1e-9)
                if let sum = wm["sum"] { close(m["sum"], sum, "\(key).\(name).sum", tolerance: 1e-9) }
                if let cap = wm["cap"] { close(m["cap"], cap, "\(key).\(name).cap", tolerance: 1e-12) }
            }
        }

        let comparisons = try #require(got["comparisons"] as? [[String: Any]])
        var wantComparisons = try #require(want["comparisons"] as? [[String: Any]])
        wantComparisons += wantComparisons.filter { $0["metric"] as? String == "revenue_per_user" }.map { var c = $0; c["metric"] = "proceeds_per_user"; return c }
        #expect(comparisons.count == wantComparisons.count)
        for w in wantComparisons {
            let key = "\(w["variant"]!)/\(w["metric"]!)"
            let c = try #require(comparisons.first { $0["variant"] as? String == w["variant"] as? String && $0["metric"] as? String == w["metric"] as? String }, "\(key) missing")
            close(c["absolute_diff"], w["absolute_diff"], "\(key).absolute_diff", tolerance: 1e-12)
            pair(c["absolute_ci"], w["absolute_ci"], "\(key).absolute_ci", tolerance: 1e-8)
            close(c["relative_lift"], w["relative_lift"], "\(key).relative_lift", tolerance: 1e-10)
            pair(c["relative_ci"], w["relative_ci"], "\(key).relative_ci", tolerance: 1e-8)
            close(c["p_value"], w["p_value"], "\(key).p_value", tolerance: 1e-8)
            close(c["p_value_adjusted"], w["p_value_adjusted"], "\(key).p_value_adjusted", tolerance: 1e-8)
            if let cap = w["cap"] { close(c["cap"], cap, "\(key).cap", tolerance: 1e-12) }
            if w["chance_to_win"] is NSNull {
                #expect(c["chance_to_win"] is NSNull && c["expected_loss"] is NSNull, "\(key): Bayesian fields should be null")
                #expect((c["null_reasons"] as? [String: String])?["chance_to_win"] != nil, "\(key): null without a reason")
            } else {
                close(c["chance_to_win"], w["chance_to_win"], "\(key).chance_to_win", tolerance: 1e-7)
                close(c["expected_loss"], w["expected_loss"], "\(key).expected_loss", tolerance: 1e-9)
            }
            if let p = w["sequential_p_value"] {
                close(c["sequential_p_value"], p, "\(key).sequential_p_value", tolerance: 1e-9)
                pair(c["sequential_ci"], w["sequential_ci"], "\(key).sequential_ci", tolerance: 1e-9)
            }
        }

        // The effect over time, day by day: users, and each treatment's difference and interval.
        let timeline = try #require(got["timeline"] as? [String: Any]), wantTimeline = try #require(want["timeline"] as? [String: Any])
        #expect(timeline["metric"] as? String == wantTimeline["metric"] as? String)
        let points = try #require(timeline["points"] as? [[String: Any]]), wantPoints = try #require(wantTimeline["points"] as? [[String: Any]])
        #expect(points.map { $0["date"] as? String } == wantPoints.map { $0["date"] as? String })
        for (p, w) in zip(points, wantPoints) {
            let date = w["date"] as? String ?? "?"
            #expect(p["users"] as? [String: Int] == w["users"] as? [String: Int], "timeline \(date) users")
            let comparisons = try #require(p["comparisons"] as? [String: [String: Any]])
            let wantComparisons = try #require(w["comparisons"] as? [String: [String: Any]])
            #expect(Set(comparisons.keys) == Set(wantComparisons.keys))
            for (variant, wc) in wantComparisons {
                close(comparisons[variant]?["absolute_diff"], wc["absolute_diff"], "timeline \(date) \(variant).absolute_diff", tolerance: 1e-12)
                pair(comparisons[variant]?["absolute_ci"], wc["absolute_ci"], "timeline \(date) \(variant).absolute_ci", tolerance: 1e-9)
            }
        }

        let survival = try #require(got["survival"] as? [String: Any]), wantSurvival = try #require(want["survival"] as? [String: Any])
        #expect(survival["days"] as? [Int] == wantSurvival["days"] as? [Int])
        close(survival["log_rank_p"], wantSurvival["log_rank_p"], "survival.log_rank_p", tolerance: 1e-8)
        let curves = try #require(survival["variants"] as? [String: [Double]]), wantCurves = try #require(wantSurvival["variants"] as? [String: [Double]])
        #expect(Set(curves.keys) == Set(wantCurves.keys))
        for (key, values) in wantCurves {
            let mine = try #require(curves[key])
            #expect(mine.count == values.count)
            for (i, (a, b)) in zip(mine, values).enumerated() { close(a, b, "survival.\(key)[\(i)]", tolerance: 1e-10) }
        }
        let intervals = try #require(survival["intervals"] as? [String: [[Double]]]), wantIntervals = try #require(wantSurvival["intervals"] as? [String: [[Double]]])
        for (key, values) in wantIntervals {
            for (i, (a, b)) in zip(try #require(intervals[key]), values).enumerated() { pair(a, b, "survival.intervals.\(key)[\(i)]", tolerance: 1e-8) }
        }

        #expect(got["copy_sources"] as? [String: [String: Int]] == want["copy_sources"] as? [String: [String: Int]])
        #expect(got["fallback_reasons"] as? [String: [String: Int]] == want["fallback_reasons"] as? [String: [String: Int]])
        #expect(got["required_users_per_variant"] as? Int == want["required_users_per_variant"] as? Int)

        let curvesByDay = try #require(got["conversion_by_day"] as? [String: [[String: Any]]])
        for (key, points) in try #require(want["conversion_by_day"] as? [String: [[String: Any]]]) {
            let mine = try #require(curvesByDay[key])
            #expect(mine.count == points.count)
            for (a, b) in zip(mine, points) {
                #expect(a["users"] as? Int == b["users"] as? Int, "conversion_by_day.\(key) day \(b["day"]!) users")
                if b["rate"] is NSNull { #expect(a["rate"] is NSNull) } else { close(a["rate"], b["rate"], "conversion_by_day.\(key) day \(b["day"]!)", tolerance: 1e-12) }
            }
        }

        let revenueByDay = try #require(got["revenue_by_day"] as? [String: [[String: Any]]])
        for (key, points) in try #require(want["revenue_by_day"] as? [String: [[String: Any]]]) {
            let mine = try #require(revenueByDay[key])
            #expect(mine.count == points.count)
            for (a, b) in zip(mine, points) {
                #expect(a["users"] as? Int == b["users"] as? Int, "revenue_by_day.\(key) day \(b["day"]!) users")
                if b["revenue_per_user"] is NSNull { #expect(a["revenue_per_user"] is NSNull) } else {
                    close(a["revenue_per_user"], b["revenue_per_user"], "revenue_by_day.\(key) day \(b["day"]!)", tolerance: 1e-9)
                }
            }
        }

        // Health: forced users and early exposures are reported with the oracle's counts.
        let health = try #require(got["health"] as? [[String: Any]]).compactMap { $0["message"] as? String }
        let forced = try #require(want["forced_users_left_out"] as? Int)
        #expect(health.contains { $0.hasPrefix("\(forced) forced QA user") }, "\(health)")
        let early = try #require(want["exposed_before_start"] as? Int)
        #expect(health.contains { $0.hasPrefix("\(HealthChecks.users(early)) first exposed before the experiment started") }, "\(health)")
        let decision = try #require(got["decision"] as? [String: Any])
        #expect(Decision.Verdict(rawValue: decision["verdict"] as? String ?? "") != nil)
        #expect((decision["reasons"] as? [String])?.isEmpty == false)
    }
}
