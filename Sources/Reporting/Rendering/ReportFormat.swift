import ExperimentDefinitions
import Foundation

/// Number and label formatting shared by the human-readable renderers (text, Markdown, HTML, CSV's headers).
enum ReportFormat {
    static func title(_ m: Metric) -> String { m.title }

    /// What the rate is out of, in words.
    static func denominatorWord(_ m: Metric) -> String { m.unit.words }

    /// A sentence on `metrics.revenue_cap` and the cap each revenue metric used, or nil without a cap.
    static func capNote(_ r: Report) -> String? {
        guard let config = r.revenueCap else { return nil }
        let rule = switch config {
        case .percentile(let p): "the \(JSONValue.format(p * 100))th percentile of paying users' revenue, pooled over the variants"
        case .absolute(let x): "a fixed \(money(x))"
        }
        let caps = r.metrics.filter(\.isRevenue).compactMap { m -> String? in
            guard let cap = r.variants.first?.metric(m)?.cap else { return nil }
            return "\(title(m).lowercased()) \(money(cap))"
        }
        return "Each user's net revenue is capped before every revenue figure, at \(rule)" + (caps.isEmpty ? "." : ": \(caps.joined(separator: "; ")).")
    }

    static func percent(_ x: Double?, digits: Int = 2) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f%%", x * 100)
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

    static func money(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.2f", x)
    }

    static func signedMoney(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%+.2f", x)
    }

    /// The value of a metric: a percentage for rates, money for revenue per user.
    static func value(_ m: Metric, _ x: Double?) -> String { m.isRevenue ? money(x) : percent(x) }

    static func interval(_ m: Metric, _ b: Bounds?) -> String {
        guard let b else { return "" }
        return m.isRevenue ? "[\(money(b.lower)), \(money(b.upper))]" : "[\(percent(b.lower)), \(percent(b.upper))]"
    }

    static func difference(_ m: Metric, _ x: Double?) -> String { m.isRevenue ? signedMoney(x) : points(x) }

    static func differenceInterval(_ m: Metric, _ b: Bounds?) -> String {
        guard let b else { return "" }
        return m.isRevenue ? "[\(signedMoney(b.lower)), \(signedMoney(b.upper))]" : "[\(points(b.lower)), \(points(b.upper))]"
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

    static func loss(_ m: Metric, _ x: Double?) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return m.isRevenue ? String(format: "%.3f", x) : String(format: "%.3f pp", x * 100)
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
}
