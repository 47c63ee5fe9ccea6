import Foundation
import TestSupport
import Testing

/// `abctl demo` as `make demo` runs it, on a copy of the shipped Experiments/: the Reports/ it writes
/// are the committed ones byte for byte, and its JSON reports tell the story the truth file tells.
@Suite struct DemoStoryTests {
    /// The truth's revenue per user by day 365 after exposure, as the simulator bills it: trial payers
    /// pay at the trial's end, direct buyers at once; a refunded payer pays nothing more and never
    /// renews; monthly payers renew every 30 days, each with probability `renewal`, or, with
    /// `renewal_churn` {alpha, beta, tenure_factor 1}, with a churn θ ~ Beta(alpha, beta) of their own,
    /// so the t-th renewal comes with probability E[(1 − θ)^t] = Π_{i<t} (beta + i) / (alpha + beta + i).
    /// Every charge (the first and each renewal) goes through unless it fails (`billing_issue`) and is not
    /// recovered (`billing_recovery`); a cancel undone (`uncancel`) is no cancel.
    static func trueRevenuePerUser(_ r: [String: Any], trialDays: Int, monthly: Double, annual: Double) -> Double {
        func x(_ key: String) -> Double { r[key] as! Double }
        func optional(_ key: String) -> Double { r[key] as? Double ?? 0 }
        let goesThrough = 1 - optional("billing_issue") * (1 - optional("billing_recovery"))
        func renews(_ t: Int) -> Double {
            let charged = pow(goesThrough, Double(t))
            guard let churn = r["renewal_churn"] as? [String: Double] else { return pow(x("renewal"), Double(t)) * charged }
            let a = churn["alpha"]!, b = churn["beta"]!
            return (0..<t).reduce(1.0) { p, i in p * (b + Double(i)) / (a + b + Double(i)) } * charged
        }
        func payer(firstPaymentDay t0: Double) -> Double {
            let payments = Int(((365 - t0) / 30).rounded(.up))   // payments at t0, t0 + 30, … before day 365
            let months = (0..<payments).reduce(0.0) { sum, t in sum + renews(t) }
            return (1 - x("refund")) * (x("annual_share") * annual + (1 - x("annual_share")) * monthly * months)
        }
        let stands = 1 - optional("uncancel")
        let trialToPaid = (1 - x("day0_cancel") * stands - (1 - x("day0_cancel")) * x("later_cancel") * stands) * x("convert") * goesThrough
        let starts = trialDays > 0 ? x("trial_start") : 0
        return starts * trialToPaid * payer(firstPaymentDay: Double(trialDays) + 0.01)
            + (1 - starts) * x("direct_purchase") * goesThrough * payer(firstPaymentDay: 0.01)
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func theDemoTellsTheTruthsStory() async throws {
        let shipped = try await ShippedDemo.run.value
        let folder = shipped.folder, demo = shipped.output
        try #require(demo.status == 0, "\(demo.stdout)\(demo.stderr)")

        // The printed summary: one block per experiment, under 40 lines, the backtest before it.
        #expect(demo.stdout.contains("abctl forecast backtest --at 60"))
        let summary = try #require(demo.stdout.components(separatedBy: "\nSummary as of ").last)
        #expect(summary.split(separator: "\n").count < 40, "\(summary)")

        // Byte for byte the committed Reports/.
        let committed = Abctl.packageRoot + "/Reports"
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/Reports").sorted()
        #expect(written == (try FileManager.default.contentsOfDirectory(atPath: committed).filter { !$0.hasPrefix(".") }.sorted()))
        for name in written {
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/Reports/\(name)"))
            let b = try? Data(contentsOf: URL(fileURLWithPath: "\(committed)/\(name)"))
            #expect(a == b, "Reports/\(name) differs from the committed one: regenerate Reports/ with 'make demo'")
        }

        let truth = try Self.json(folder.path + "/Experiments/simulation/chorus-plus-truth.json")
        let defaults = try #require(truth["default"] as? [String: Any])
        let arms = try #require(truth["experiments"] as? [String: [String: [String: Any]]])
        let products = try Self.json(folder.path + "/Experiments/products.json")
        let plans = try #require(((products["offerings"] as? [String: Any])?["chorus_plus"] as? [String: Any])?["plans"] as? [String: [String: Any]])
        // Users pay their storefront's list price (products.json `storefronts`, by the country the truth's
        // population draws), reported converted into the report currency: the truth's price is the mix.
        let storefronts = products["storefronts"] as? [String: String] ?? [:]
        let exchangeRates = products["exchange_rates"] as? [String: Double] ?? [:]
        let countries = try #require((truth["population"] as? [String: Any])?["country"] as? [String: Double])
        func price(_ plan: String) throws -> Double {
            let p = try #require(plans[plan])
            return try countries.reduce(0.0) { sum, c in
                guard let currency = storefronts[c.key] else { return sum + c.value * (p["price"] as! Double) }
                let local = try #require((p["prices"] as? [String: Double])?[currency]), rate = try #require(exchangeRates[currency])
                return sum + c.value * local * rate
            }
        }
        #expect(storefronts.count >= 2, "the story prices plans in storefronts of their own")
        let monthly = try price("monthly"), annual = try price("annual")

        let index = try String(contentsOfFile: folder.path + "/Reports/index.html", encoding: .utf8)
        var forecastArms = 0, forecastMisses: [String] = []
        for (experiment, variants) in arms {
            let report = try Self.json("\(folder.path)/Reports/\(experiment).json")
            #expect(index.contains("href=\"\(experiment).html\""), "index.html links \(experiment)")
            // A sentence never quotes a p-value rounded to nothing: a tiny one reads "p < 0.0001".
            let reasons = try #require((report["decision"] as? [String: Any])?["reasons"] as? [String])
            for reason in reasons { #expect(!reason.contains("0.0000"), "\(experiment): \(reason)") }
            let file = try Self.json("\(folder.path)/Experiments/\(experiment).json")
            let trialDays = Dictionary(uniqueKeysWithValues: try #require(file["variants"] as? [[String: Any]]).map {
                ($0["key"] as! String, ($0["paywall"] as? [String: Any])?["trial_days"] as? Int ?? 0)
            })
            // Every arm's forecast is fitted and the truth's revenue per user by day 365 is close to it:
            // inside its 90% interval, or within 15% of the forecast, for every arm but at most one (below).
            // A calibrated 90% interval misses about one arm in ten: over seeds 1-8 and 42
            // (tools/demo_forecast_coverage.py, docs/Forecast.md) 63 of 72 intervals covered the truth.
            // Billing failures add a constant churn the sBG reads as heterogeneity, and the discount
            // arms fit on about 100 monthly payers: on seed 42 percent-off's forecast is 25% above its truth.
            let forecast = try #require(report["forecast"] as? [String: [String: Any]], "\(experiment) has no forecast")
            for (variant, own) in variants {
                let rates = defaults.merging(own) { $1 }
                let expected = Self.trueRevenuePerUser(rates, trialDays: trialDays[variant] ?? 0, monthly: monthly, annual: annual)
                let arm = try #require(forecast[variant], "\(experiment) \(variant)")
                let ci = try #require(arm["ci"] as? [Double], "\(experiment) \(variant): \(arm["null_reason"] ?? "")")
                let point = try #require(arm["revenue_per_user"] as? Double)
                forecastArms += 1
                if !((ci[0] <= expected && expected <= ci[1]) || abs(point / expected - 1) < 0.15) {
                    forecastMisses.append("\(experiment) \(variant): truth \(expected) against \(point) \(ci)")
                }
                let model = try #require(arm["model"] as? [String: Any])
                #expect(model["P1M"] != nil, "\(experiment) \(variant): the monthly plan's renewals are fitted")
            }
            // Split by country (four countries) and platform (one cell where the audience takes one platform).
            let segments = try #require(report["segments"] as? [String: Any])
            for dimension in ["country", "platform"] {
                let cells = try #require((segments[dimension] as? [String: Any])?["cells"] as? [[String: Any]], "\(experiment) by \(dimension)")
                #expect(cells.count >= (dimension == "country" ? 2 : 1), "\(experiment) by \(dimension): \(cells.count) cells")
            }
        }

        #expect(forecastArms == 12 && forecastMisses.count <= 1, "\(forecastMisses.count) of \(forecastArms) arms' forecasts miss their truth: \(forecastMisses)")

        // The global holdout: a tenth of the users, kept out of every experiment, so its report measures
        // what the experiments add up to.
        let holdout = try Self.json(folder.path + "/Reports/chorus-holdout.json")
        let holdoutArms = try #require(holdout["variants"] as? [[String: Any]])
        let held = try #require(holdoutArms.first { $0["key"] as? String == "holdout" }?["users"] as? Int)
        let general = try #require(holdoutArms.first { $0["key"] as? String == "general" }?["users"] as? Int)
        #expect(abs(Double(held) / Double(held + general) - 0.1) < 0.005, "held out \(held) of \(held + general)")
        #expect(index.contains("href=\"chorus-holdout.html\"") && index.contains("users held out of every experiment"))
        #expect(summary.contains("users held out of every experiment") && summary.contains("the experiments together (general against holdout)"), "\(summary)")
        // The truth of that combined effect, user-weighted: each experiment's users would
        // have seen their placement's default paywall without it (a held-out user's answer), so
        // every arm's users add (the arm's rate − the default's rate under that paywall); users no
        // experiment showed an arm (and trial-7d's users after its stop, who get the control's paywall,
        // the default's rates) add nothing. The holdout's 95% intervals cover it.
        let placements = try #require(try Self.json(folder.path + "/Experiments/placements.json")["placements"] as? [String: [String: Any]])
        func defaultTrialDays(of experiment: String) throws -> Int {
            let placement = try #require(placements.values.first { (($0["audiences"] as? [[String: Any]]) ?? []).contains { $0["experiment"] as? String == experiment } })
            return (placement["default"] as? [String: Any])?["trial_days"] as? Int ?? 0
        }
        func rates(_ r: [String: Any], trialDays: Int) -> (trialStart: Double, paid: Double) {
            func x(_ key: String) -> Double { r[key] as! Double }
            let starts = trialDays > 0 ? x("trial_start") : 0
            return (starts, starts * (1 - x("day0_cancel")) * (1 - x("later_cancel")) * x("convert") + (1 - starts) * x("direct_purchase"))
        }
        var combined = (trialStart: 0.0, paid: 0.0)
        for (experiment, variants) in arms {
            let report = try Self.json("\(folder.path)/Reports/\(experiment).json")
            let users = Dictionary(uniqueKeysWithValues: try #require(report["variants"] as? [[String: Any]]).map { ($0["key"] as! String, $0["users"] as! Int) })
            let file = try Self.json("\(folder.path)/Experiments/\(experiment).json")
            let without = rates(defaults, trialDays: try defaultTrialDays(of: experiment))
            for v in try #require(file["variants"] as? [[String: Any]]) {
                let key = v["key"] as! String, n = Double(try #require(users[key], "\(experiment) \(key)"))
                let with = rates(defaults.merging(variants[key] ?? [:]) { $1 }, trialDays: (v["paywall"] as? [String: Any])?["trial_days"] as? Int ?? 0)
                combined.trialStart += n * (with.trialStart - without.trialStart) / Double(general)
                combined.paid += n * (with.paid - without.paid) / Double(general)
            }
        }
        let comparisons = try #require(holdout["comparisons"] as? [[String: Any]])
        for (metric, truth) in [("trial_start_rate", combined.trialStart), ("paid_conversion", combined.paid)] {
            let c = try #require(comparisons.first { $0["metric"] as? String == metric && $0["variant"] as? String == "general" }, "\(metric)")
            let ci = try #require(c["absolute_ci"] as? [Double], "\(metric)")
            #expect(ci[0] < truth && truth < ci[1] && ci[0] > 0, "\(metric): the experiments' true combined effect \(truth), interval \(ci)")
        }

        // The harmful arm (trial-7d's Day-0 cancels, 40% against 25%) is stopped by its safeguard during the story.
        let trial = try Self.json(folder.path + "/Reports/chorus-trial-length.json")
        let stops = try #require(trial["safeguards"] as? [[String: Any]])
        #expect(stops.count == 1)
        #expect(stops.first?["arm"] as? String == "trial-7d" && stops.first?["metric"] as? String == "day0_cancel_rate")
        let at = try #require(stops.first?["at"] as? String), end = try #require(trial["as_of"] as? String)
        #expect(at < end && at > "2026-11-02", "stopped at \(at), the story ends \(end)")
        #expect(summary.contains("safeguard stopped arm trial-7d on day0_cancel_rate"))
        #expect(summary.contains("forecast: gross revenue per user by day 365, USD"), "\(summary)")
        #expect(summary.contains("Storefronts: "), "\(summary)")
        // Users who sign up after the paywall and buy under their account id (README): the summary says so.
        #expect(summary.contains("Sign-ups: 40% of users log in after the paywall"), "\(summary)")

        // The bandit over AI lines: by the last day of arrivals it sends most users to the arm whose true
        // trial start rate is the highest, and its report's periods say so.
        let lines = try Self.json(folder.path + "/Reports/chorus-voice.json")
        let banditTruth = try #require(arms["chorus-voice"])
        let best = try #require(banditTruth.max { (($0.value["trial_start"] as? Double) ?? (defaults["trial_start"] as! Double)) < (($1.value["trial_start"] as? Double) ?? (defaults["trial_start"] as! Double)) }?.key)
        let periods = try #require((lines["allocation"] as? [String: Any])?["periods"] as? [[String: Any]])
        let lastWithUsers = try #require(periods.last { (($0["users"] as? [String: Int]) ?? [:]).values.contains { $0 > 0 } })
        let weights = try #require(lastWithUsers["weights"] as? [String: Double])
        #expect((weights[best] ?? 0) > 0.5 && lastWithUsers["rule"] as? String == "learned", "\(lastWithUsers)")
        #expect(summary.contains("chance of being best: \(best) "), "\(summary)")
    }
}
