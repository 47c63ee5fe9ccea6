import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// The demo's closing summary (and the index page's lines): per experiment the verdict, when a
/// decision can be expected while there is none, the forecast per arm and any safeguard stop.
enum DemoSummary {
    static func text(_ reports: [Report], holdouts: Set<String>, products: Products, login: Double, asOf: Date, out: String) -> String {
        var lines = ["Summary as of \(RFC3339.format(asOf)) (open \(out)/index.html):"]
        if let prices = storefronts(products) { lines.append(prices) }
        if let people = signUps(login) { lines.append(people) }
        for r in reports {
            if holdouts.contains(r.experimentID) {
                lines.append("\(r.experimentID): \(heldOut(r))")
                lines.append("  \(together(r))")
                lines.append("  forecast: \(forecast(r))")
                continue
            }
            lines.append("\(r.experimentID): \(verdict(r))")
            if let b = bandit(r) { lines.append("  \(b)") }
            lines.append("  forecast: \(forecast(r))")
            lines.append("  \(safeguards(r))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "ship ai", "stop", "inconclusive" or "keep running; a decision is expected by 2027-03-20".
    static func verdict(_ r: Report) -> String {
        let d = r.decision
        switch d.verdict {
        case .ship: return "ship \(d.winner ?? "")"
        case .stop: return "stop"
        case .inconclusive: return "inconclusive"
        case .keepRunning:
            guard let eta = d.eta else { return "keep running; when a decision can be expected is unknown: \(d.etaReason ?? "no estimate")" }
            return eta > r.asOf ? "keep running; a decision is expected by \(day(eta))"
                : "keep running; every arm has had the users it was sized for since \(day(eta))"
        }
    }

    /// Each arm's gross revenue per user at the horizon with its 90% interval and its proceeds, or why there is none.
    static func forecast(_ r: Report) -> String {
        guard let arms = r.forecast, let horizon = arms.first?.horizonDays else { return "none: no arm has a mature payer yet" }
        let parts = arms.map { a -> String in
            guard let x = a.revenuePerUser else { return "\(a.variant) none (\(a.nullReason ?? "no figure"))" }
            return "\(a.variant) \(money(x))" + (a.ci.map { " [\(money($0.lower))–\(money($0.upper))]" } ?? "")
                + (a.proceedsPerUser.map { " (proceeds \(money($0)))" } ?? "")
        }
        return "gross revenue per user by day \(horizon), \(r.currency): " + parts.joined(separator: ", ")
    }

    /// "Storefronts: GB pays in GBP, DE and FR in EUR, every other country in USD; money is reported in USD."
    static func storefronts(_ products: Products) -> String? {
        guard !products.storefronts.isEmpty else { return nil }
        let byCurrency = Dictionary(grouping: products.storefronts.keys.sorted()) { products.storefronts[$0]! }
        let parts = byCurrency.keys.sorted().map { c in
            let countries = byCurrency[c]!
            return (countries.count == 1 ? countries[0] : countries.dropLast().joined(separator: ", ") + " and " + countries.last!) + " in \(c)"
        }
        return "Storefronts: " + parts.joined(separator: ", ") + ", every other country in \(products.currency); money is reported in \(products.currency)."
    }

    /// The story's log-ins (the truth's `population.login`): nil when nobody logs in.
    static func signUps(_ share: Double) -> String? {
        guard share > 0 else { return nil }
        return "Sign-ups: \(Int((share * 100).rounded()))% of users log in after the paywall and buy under their account id; "
            + "their purchases count for the arm their anonymous id saw (docs/People.md)."
    }

    /// A bandit's weights in the last period users arrived in, and each arm's chance of being the best.
    static func bandit(_ r: Report) -> String? {
        guard let a = r.allocation, let last = a.periods.last(where: { $0.users.contains { $0 > 0 } }) ?? a.periods.last else { return nil }
        let weights = zip(a.variants, last.weights).map { "\($0) \(Int(($1 * 100).rounded()))%" }.joined(separator: ", ")
        var line = "bandit: weights in period \(last.index) (\(day(last.from))): \(weights)"
        if let best = a.chanceBest, let i = best.indices.max(by: { best[$0] < best[$1] }) {
            line += "; chance of being best: \(a.variants[i]) \(Wording.share(best[i], digits: 1))"
        }
        return line
    }

    static func safeguards(_ r: Report) -> String {
        guard !r.safeguards.isEmpty else { return "safeguards: no stop" }
        return r.safeguards.map { s in
            let lifted = s.resetAt.map { ", lifted \(day($0.date))" } ?? ""
            let f = s.figures
            return "safeguard stopped \(s.action == .stopExperiment ? "the experiment" : "arm \(s.arm)") on \(s.metric) on \(day(s.stoppedAt.date))"
                + String(format: " (%.1f%% against %.1f%% in the control)", f.comparedArmRate * 100, f.comparedControlRate * 100) + lifted
        }.joined(separator: "; ")
    }

    /// "10,087 of 100,000 users held out of every experiment".
    static func heldOut(_ r: Report) -> String {
        "\(DemoIndexPage.count(r.control.users)) of \(DemoIndexPage.count(r.users)) users held out of every experiment"
    }

    /// What a global holdout shows: the experiments' combined effect, its other arm against the
    /// holdout, on the primary metric and revenue per user, with 95% intervals.
    static func together(_ r: Report) -> String {
        guard let general = r.variants.dropFirst().first?.key else { return "no users outside the holdout yet" }
        let parts = [r.primaryMetric, .revenuePerUser].compactMap { m -> String? in
            guard let c = r.comparisons.first(where: { $0.variant == general && $0.metric == m }), let d = c.absoluteDiff,
                  let ci = c.absoluteCI else { return nil }
            func v(_ x: Double) -> String { m.isRevenue ? String(format: "%+.2f", x) : String(format: "%+.2f", x * 100) }
            return "\(m.title.lowercased()) \(v(d))\(m.isRevenue ? " \(r.currency)" : " pp") [\(v(ci.lower)), \(v(ci.upper))]"
        }
        return "the experiments together (\(general) against holdout): " + (parts.isEmpty ? "no comparison yet" : parts.joined(separator: "; "))
    }

    static func money(_ x: Double) -> String { String(format: "%.2f", x) }
    static func day(_ d: Date) -> String { String(RFC3339.format(d).prefix(10)) }
}
