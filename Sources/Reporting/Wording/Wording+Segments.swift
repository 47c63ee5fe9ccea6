import ExperimentDefinitions

extension Wording {
    /// A segment cell's value; `other` names (some of) the values pooled into it.
    static func segmentValue(_ cell: SegmentDimension.Cell) -> String {
        guard cell.value == Segments.otherValue, !cell.pooledValues.isEmpty else { return cell.value }
        let shown = cell.pooledValues.prefix(4).joined(separator: ", ")
        return cell.value + " (\(shown)\(cell.pooledValues.count > 4 ? ", …" : ""))"
    }

    /// "Values with fewer than 100 users in an arm … are pooled into `other`."
    static func poolingNote(_ d: SegmentDimension) -> String {
        "Values with fewer than \(count(d.minUsers)) users in an arm are pooled into \"other\"; values with fewer than 10 users with or without the event of a rate in an arm are pooled into \"other\" for that rate only; p (Holm) is adjusted across the cells of each metric and variant."
    }

    /// Per (metric, variant): Cochran's Q p-value in words.
    static func heterogeneityLines(_ d: SegmentDimension) -> [String] {
        d.heterogeneity.map { h in
            let head = "\(title(h.metric)), \(h.variant): heterogeneity "
            guard let p = h.pValue else { return head + "n/a (\(h.nullReason ?? "not computed"))" }
            return head + "p = \(pValue(p))" + (h.differs ? ": the effect differs by \(d.dimension)" : "")
        }
    }

    /// "The primary and guardrail comparisons are post-stratified on …", when they are.
    static func adjustmentNote(_ r: Report) -> String? {
        guard let a = r.comparisons.first(where: { $0.adjustment != nil })?.adjustment else { return nil }
        if r.allocation != nil {
            return "A bandit's comparisons are period-stratified: arms are compared within each allocation period, and the periods weighted by their share of the users compared, never pooled; the verdict reads these figures. Pooled figures beside them:"
        }
        return "The primary and guardrail comparisons are post-stratified on \(a.attributes.joined(separator: " × ")) (strata under 50 users in an arm pooled); the verdict reads these adjusted figures. Unadjusted figures beside them:"
    }

    static func varianceReduction(_ a: Adjustment) -> String {
        guard let v = a.varianceReduction else { return "n/a" }
        return signedPercent(v, digits: 1)
    }
}
