import ExperimentDefinitions
import Events
import Foundation

/// Figures into words: numbers, money, p-values, dates, and the sentences the analysis (verdict
/// reasons, health checks) and every format (text, Markdown, HTML, JSON's legend) say the same way.
/// No layout here: the renderers only place these words.
public enum Wording {
    static func title(_ m: Metric) -> String { m.title }

    /// The title, with "(lower is better)" for metrics where a fall is good news (cancel and refund rates).
    static func directedTitle(_ m: Metric) -> String { m.title + (m.lowerIsBetter ? " (lower is better)" : "") }

    /// The legend of the comparisons, the same words in every format (only the marks differ).
    static func legend(_ r: Report, better: String = "▲", worse: String = "▼") -> [String] {
        [
            "\(better) \(legendBetter), \(worse) \(legendWorse)",
            "Chance better: the chance the variant is better in that direction. Expected loss: what shipping the variant gives up on average if it is in fact worse, in percentage points (pp) of the rate, or for revenue in \(r.currency) per user.",
            moneyNote(r),
        ]
    }

    /// What the money figures are: gross is what users paid, tax included; proceeds what the
    /// team receives after the store's cut and tax; both after refunds. Says when tax is not known.
    static func moneyNote(_ r: Report) -> String {
        "Money figures are per exposed user, in \(r.currency), refunds subtracted: gross revenue is what users paid (tax included); proceeds are what the team receives after the store's cut and tax"
            + (r.proceedsBeforeTax ? ". Proceeds before tax: for some payments the store did not say its cut and tax, so proceeds are the revenue less the store's cut from products.json, with tax not known." : ".")
    }

    /// The CSV's `money` column: "gross", "proceeds" or "proceeds before tax"; empty for a rate.
    static func moneyKind(_ m: Metric, _ r: Report) -> String {
        guard m.isRevenue else { return "" }
        return m.isProceeds ? (r.proceedsBeforeTax ? "proceeds before tax" : "proceeds") : "gross"
    }

    /// "gross revenue" or "proceeds": which money a metric counts, never "net".
    static func moneyWords(_ m: Metric) -> String { m.isProceeds ? "proceeds" : "gross revenue" }

    /// The legend's first line around its two marks.
    static let legendBetter = "clearly better than the control"
    static let legendWorse = "clearly worse, each in its metric's good direction: higher for trial starts, conversion and revenue; lower for cancel and refund rates (marked “lower is better”)."

    /// "1 user", "29,958 users": a count with its noun, singular for one.
    static func counted(_ n: Int, _ noun: String) -> String { "\(count(n)) \(noun)\(n == 1 ? "" : "s")" }

    /// The survival table's column for `day`.
    static func survivalDay(_ day: Int) -> String { "day \(day)" }

    /// What the survival section shows, and up to when.
    static func survivalNote(_ r: Report) -> String {
        "Kaplan–Meier survival from trial start to the subscription's end (a cancel that was not undone, or an expiry): day d is the share still subscribed at the end of day d since trial start (day 0 is the first 24 hours, where Day-0 cancels fall); users still subscribed are counted up to \(date(r.asOf))."
    }

    /// How each arm's subscriptions ended, by kind: "Ends by kind: “control” 120 voluntary, 30 involuntary (billing), 2 other; …".
    static func endsByKind(_ curves: [SurvivalResult.Curve]) -> String {
        let arms = curves.map { c in
            "“\(c.key)” \(count(c.ends[.voluntary] ?? 0)) voluntary, \(count(c.ends[.involuntary] ?? 0)) involuntary (billing), \(count(c.ends[.other] ?? 0)) other"
        }
        return "Ends by kind: " + arms.joined(separator: "; ") + "."
    }

    /// What the rate is out of, in words.
    static func denominatorWord(_ m: Metric) -> String { m.unit.words }

    /// A sentence on `metrics.revenue_cap` and the cap each revenue metric used, or nil without a cap.
    static func capNote(_ r: Report) -> String? {
        guard let config = r.revenueCap else { return nil }
        let rule = switch config {
        case .percentile(let p): "the \(JSONValue.format(p * 100))th percentile of paying users' revenue, pooled over the variants"
        case .absolute(let x): "a fixed \(money(x, in: r.currency))"
        }
        let caps = r.metrics.filter(\.isRevenue).compactMap { m -> String? in
            guard let cap = r.variants.first?.metric(m)?.cap else { return nil }
            return "\(title(m).lowercased()) \(money(cap, in: r.currency))"
        }
        return "Each user's gross revenue and proceeds are capped, each on its own values, before every money figure, at \(rule)" + (caps.isEmpty ? "." : ": \(caps.joined(separator: "; ")).")
    }

    static func percent(_ x: Double?, digits: Int = 2) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f%%", x * 100)
    }

    /// A share in percent with `digits` decimals that never rounds a few to none or nearly all to all:
    /// "43%", "under 1%", "over 99%" ("under 0.1%", "over 99.9%" with one decimal), "0%" only for
    /// none, "100%" only for all. Public for the console's pages.
    public static func share(_ x: Double, digits: Int = 0) -> String {
        let step = pow(10, -Double(digits)) / 100
        if x > 0 && x < step { return "under " + percent(step, digits: digits) }
        if x < 1 && x > 1 - step { return "over " + percent(1 - step, digits: digits) }
        return percent(x, digits: digits)
    }

    static func signedPercent(_ x: Double?, digits: Int = 1) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%+.\(digits)f%%", x * 100)
    }

    /// A difference of two rates in percentage points.
    static func points(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%+.2f pp", x * 100)
    }

    /// `x` rounded to the cent: how every total and cap of money is written in JSON and CSV.
    static func cents(_ x: Double) -> Double { (x * 100).rounded() / 100 }

    /// An amount in the report currency, its code after it: "1.25 USD".
    static func money(_ x: Double?, in currency: String) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.2f", x) + " " + currency
    }

    static func signedMoney(_ x: Double?, in currency: String) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%+.2f", x) + " " + currency
    }

    /// The value of a metric: a percentage for rates, money for revenue per user.
    static func value(_ m: Metric, _ x: Double?, in currency: String) -> String { m.isRevenue ? money(x, in: currency) : percent(x) }

    static func interval(_ m: Metric, _ b: Bounds?, in currency: String) -> String {
        guard let b else { return "" }
        return m.isRevenue ? "[\(String(format: "%.2f", b.lower)), \(money(b.upper, in: currency))]" : "[\(percent(b.lower)), \(percent(b.upper))]"
    }

    static func difference(_ m: Metric, _ x: Double?, in currency: String) -> String { m.isRevenue ? signedMoney(x, in: currency) : points(x) }

    static func differenceInterval(_ m: Metric, _ b: Bounds?, in currency: String) -> String {
        guard let b else { return "" }
        return m.isRevenue ? "[\(String(format: "%+.2f", b.lower)), \(signedMoney(b.upper, in: currency))]" : "[\(points(b.lower)), \(points(b.upper))]"
    }

    static func liftInterval(_ b: Bounds?) -> String {
        guard let b else { return "" }
        return "[\(signedPercent(b.lower)), \(signedPercent(b.upper))]"
    }

    static func pValue(_ p: Double?) -> String {
        guard let p, p.isFinite else { return "n/a" }
        if p < 0.0001 { return "<0.0001" }
        return String(format: "%.4f", p)
    }

    /// "p = 0.0123", or "p < 0.0001" for tiny values.
    static func pEquals(_ p: Double?) -> String {
        let text = pValue(p)
        return text.hasPrefix("<") ? "p < \(text.dropFirst())" : "p = \(text)"
    }

    static func probability(_ p: Double?) -> String {
        guard let p, p.isFinite else { return "n/a" }
        if p > 0.999 { return ">99.9%" }
        if p < 0.001 { return "<0.1%" }
        return String(format: "%.1f%%", p * 100)
    }

    /// Expected loss: per user in the report currency for revenue, in percentage points for rates.
    static func loss(_ m: Metric, _ x: Double?, in currency: String) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return m.isRevenue ? String(format: "%.3f", x) + " \(currency)/user" : String(format: "%.3f pp", x * 100)
    }

    static func count(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }

    static func date(_ d: Date) -> String { RFC3339.format(d) }

    /// A bandit's weights in force, at a glance: "Weights now (period 14, from 2026-11-16): warm 42%, dawn 30%, …".
    static func weightsNow(_ a: AllocationResult) -> String {
        guard let last = a.periods.last else { return "No allocation period yet." }
        let total = max(1e-300, last.weights.reduce(0, +))
        let shares = zip(a.variants, last.weights).map { "\($0) \(Int(($1 / total * 100).rounded()))%" }
        return "Weights now (period \(last.index), from \(RFC3339.formatDay(last.from))): " + shares.joined(separator: ", ") + "."
    }

    /// `decision.eta` in words, the same in every format; nil once the verdict is a decision (ship or
    /// stop) before the planned size, where "a decision can be expected by" would contradict it.
    static func eta(_ r: Report) -> String? {
        let decided = r.decision.verdict == .ship || r.decision.verdict == .stop
        if let eta = r.decision.eta {
            if eta <= r.asOf { return "Every arm has had the users the test was sized for since \(date(eta))." }
            return decided ? nil : "A decision can be expected by \(date(eta)), at the last 7 days' arrival rate."
        }
        return decided ? nil : "When a decision can be expected is unknown: \(r.decision.etaReason ?? "no estimate")."
    }

    /// One safeguard stop in words, the same in every format: "treatment stopped on day0_cancel_rate
    /// at …: 40.1% (481 of 1,200) against 19.8% (238 of 1,200) in the control; …".
    static func safeguard(_ s: SafeguardStop) -> String {
        let f = s.figures
        let who = s.action == .stopExperiment ? "experiment stopped (every arm) on \(s.arm)'s" : "arm \(s.arm) stopped on"
        var out = "\(who) \(s.metric) at \(RFC3339.format(s.stoppedAt.date)): "
        if let st = f.stratified {
            // A bandit's stop compared period-stratified rates; the pooled counts are beside them.
            out += "\(String(format: "%.1f%%", st.armRate * 100)) against \(String(format: "%.1f%%", st.controlRate * 100)) in the control, "
                + "period-stratified over \(st.periods) period\(st.periods == 1 ? "" : "s") (pooled \(count(f.armCount)) of \(count(f.armUsers)) "
                + "and \(count(f.controlCount)) of \(count(f.controlUsers))); "
        } else {
            out += "\(String(format: "%.1f%%", f.armRate * 100)) "
                + "(\(count(f.armCount)) of \(count(f.armUsers))) against \(String(format: "%.1f%%", f.controlRate * 100)) "
                + "(\(count(f.controlCount)) of \(count(f.controlUsers))) in the control; "
        }
        out += "\(f.boundWords) at level \(String(format: "%.4g", f.level))"
        if let reset = s.resetAt {
            out += "; lifted at \(RFC3339.format(reset.date))" + (s.resetBy.map { " by \($0)" } ?? "")
        } else {
            out += "; in force: its users get the control's paywall"
        }
        return out
    }

    /// What the effect over time shows, and how each day is read.
    static func timelineNote(_ t: Timeline, _ r: Report) -> String {
        var note = "\(title(t.metric)) against the control, each day as a report run to that day's end would have shown it: the users first exposed by then, each counted once old enough by then"
        if let n = t.metric.horizonDays { note += " (followed for \(n) day\(n == 1 ? "" : "s"), so the first days have no figure)" }
        note += ". The last day is this report's own figure"
        if t.points.count >= Timeline.maxPoints { note += "; beyond \(Timeline.maxPoints) days the days shown are evenly spaced" }
        return note + "."
    }
}
