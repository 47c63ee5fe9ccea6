import ExperimentDefinitions

/// What the text and Markdown renderers show of segments and adjustments, worded once.
enum SegmentRows {
    /// One row per (cell, metric, variant) of a dimension, as display strings.
    struct Row {
        var value: String
        var users: String
        var metric: String
        var variant: String
        var difference: String
        var interval: String
        var lift: String
        var pHolm: String
        var reading: VerdictReading
    }

    static func rows(_ d: SegmentDimension, primary: Metric, in currency: String) -> [Row] {
        d.cells.flatMap { cell in
            cell.comparisons.map { c in
                var value = cell.value
                if cell.value == Segments.otherValue, !cell.pooledValues.isEmpty {
                    let shown = cell.pooledValues.prefix(4).joined(separator: ", ")
                    value += " (\(shown)\(cell.pooledValues.count > 4 ? ", …" : ""))"
                }
                return Row(value: value, users: Wording.count(cell.users),
                           metric: Wording.title(c.metric) + (c.metric == primary ? " *" : ""), variant: c.variant,
                           difference: Wording.difference(c.metric, c.absoluteDiff, in: currency),
                           interval: Wording.differenceInterval(c.metric, c.absoluteCI, in: currency),
                           lift: Wording.signedPercent(c.relativeLift), pHolm: Wording.pValue(c.pValueAdjusted), reading: c.reading)
            }
        }
    }

    /// "Users with fewer than 100 in an arm, or under 10 events or non-events of a rate, are pooled into `other`."
    static func poolingNote(_ d: SegmentDimension) -> String {
        "Values with fewer than \(Wording.count(d.minUsers)) users in an arm are pooled into \"other\"; values with fewer than 10 users with or without the event of a rate in an arm are pooled into \"other\" for that rate only; p (Holm) is adjusted across the cells of each metric and variant."
    }

    /// Per (metric, variant): Cochran's Q p-value in words.
    static func heterogeneityLines(_ d: SegmentDimension) -> [String] {
        d.heterogeneity.map { h in
            let head = "\(Wording.title(h.metric)), \(h.variant): heterogeneity "
            guard let p = h.pValue else { return head + "n/a (\(h.nullReason ?? "not computed"))" }
            return head + "p = \(Wording.pValue(p))" + (h.differs ? ": the effect differs by \(d.dimension)" : "")
        }
    }

    /// "Adjusted for country × platform (12 strata)": the comparisons that are post-stratified.
    static func adjusted(_ r: Report) -> [ComparisonResult] { r.comparisons.filter { $0.adjustment != nil } }

    static func adjustmentNote(_ r: Report) -> String? {
        guard let a = adjusted(r).first?.adjustment else { return nil }
        return "The primary and guardrail comparisons are post-stratified on \(a.attributes.joined(separator: " × ")) (strata under 50 users in an arm pooled); the verdict reads these adjusted figures. Unadjusted figures beside them:"
    }

    static func varianceReduction(_ a: Adjustment) -> String {
        guard let v = a.varianceReduction else { return "n/a" }
        return Wording.signedPercent(v, digits: 1)
    }
}
