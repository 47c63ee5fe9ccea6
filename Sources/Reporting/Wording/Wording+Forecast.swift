import Foundation

extension Wording {
    /// The forecast section's heading words: "revenue per user by day 365, 90% interval".
    static func forecastHeading(_ forecasts: [ArmForecast]) -> String {
        "gross revenue and proceeds per user by day \(forecasts.first?.horizonDays ?? 365) after first exposure, 90% intervals"
    }

    /// Payers whose plan cannot be told: never dropped silently.
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
            let shape = m.capped ? m.c.map { String(format: "a discrete Weibull model (c %.3g: churn ", $0) + "\($0 > 1 ? "rising" : "falling") with tenure; no heterogeneity seen: α + β at the cap; preferred to the sBG at 0.05)" }
                ?? "a plain geometric model (no heterogeneity seen: α + β at the cap)"
                : m.c.map { String(format: "the beta-discrete-Weibull (churn from Beta(α %.3g, β %.3g), c %.3g: ", m.alpha, m.beta, $0)
                    + "\($0 > 1 ? "rising" : "falling") with tenure; preferred to the sBG at 0.05)" }
                ?? String(format: "churn per period from Beta(α %.3g, β %.3g)", m.alpha, m.beta)
            return "\(ArmForecast.periodWords(period)) renewals of \(count(m.payers)) payers follow \(shape), mean churn \(percent(churn, digits: 1)) \(m.c == nil ? "a period" : "at the first renewal")"
        }
        if !models.isEmpty { s += "; " + models.joined(separator: "; ") }
        if let unplaced = f.nullReasons["unplaced_payers"] { s += "; " + unplaced }
        return s
    }

    static let forecastNote = "Revenue to date of users who have finished the trial, plus the further payments the renewal model fitted per arm and plan period (the shifted-beta-geometric of Fader and Hardie 2007, or the beta-discrete-Weibull of Fader et al. 2018 where a likelihood-ratio test prefers it) expects of payers still subscribed; proceeds likewise, each further payment bringing in what the payer's last one did after the store's cut. A forecast, not revenue earned: see docs/Forecast.md for its measured error."
}
