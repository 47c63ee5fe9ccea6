import Foundation

extension Wording {
    /// The forecast section's heading words: "revenue per user by day 365, 90% interval".
    static func forecastHeading(_ forecasts: [ArmForecast]) -> String {
        "gross revenue and proceeds per user by day \(forecasts.first?.horizonDays ?? 365) after first exposure, 90% intervals"
    }

    /// Payers whose plan cannot be told: never dropped silently (SPEC §5).
    static func unplacedPayers(_ n: Int) -> String {
        "\(counted(n, "payer")) whose plan cannot be told (a product_id no plan of products.json has, or none and no plan at the price paid): their revenue to date counts, no renewal is forecast"
    }

    /// One arm's forecast in words, the same in text, Markdown and HTML.
    static func forecastLine(_ f: ArmForecast, in currency: String, proceedsBeforeTax: Bool) -> String {
        guard let value = f.revenuePerUser else { return "\(f.variant): no forecast: \(f.nullReason ?? "not enough data")" }
        var s = "\(f.variant): gross \(money(value, in: currency))"
        if let ci = f.ci { s += " (\(money(ci.lower, in: currency)) to \(money(ci.upper, in: currency)))" }
        if let proceeds = f.proceedsPerUser {
            s += ", \(proceedsBeforeTax ? "proceeds before tax" : "proceeds") \(money(proceeds, in: currency))"
            if let ci = f.proceedsCI { s += " (\(money(ci.lower, in: currency)) to \(money(ci.upper, in: currency)))" }
        }
        s += " over \(count(f.users)) users who have finished the trial"
        let models = f.model.keys.sorted().map { period -> String in
            let m = f.model[period]!
            let churn = m.alpha + m.beta > 0 ? m.alpha / (m.alpha + m.beta) : 0
            let shape = m.capped ? "a plain geometric model (no heterogeneity seen: α + β at the cap)"
                : String(format: "churn per period from Beta(α %.3g, β %.3g)", m.alpha, m.beta)
            return "\(ArmForecast.periodWords(period)) renewals of \(count(m.payers)) payers follow \(shape), mean churn \(percent(churn, digits: 1)) a period"
        }
        if !models.isEmpty { s += "; " + models.joined(separator: "; ") }
        if let unplaced = f.nullReasons["unplaced_payers"] { s += "; " + unplaced }
        return s
    }

    static let forecastNote = "Revenue to date of users who have finished the trial, plus the further payments the shifted-beta-geometric renewal model (Fader and Hardie 2007), fitted per arm and plan period, expects of payers still subscribed; proceeds likewise, each further payment bringing in what the payer's last one did after the store's cut. A forecast, not revenue earned: see docs/Forecast.md for its measured error."
}
