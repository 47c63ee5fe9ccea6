import ExperimentDefinitions

extension ComparisonResult {
    /// "period-stratified" (a bandit's comparisons) or "post-stratified" (`metrics.adjust_for`) when the
    /// figures are such an estimate, nil for plain ones: a sentence that quotes one beside pooled rates names it.
    public var estimateName: String? {
        guard let a = adjustment else { return nil }
        return a.attributes == ["allocation_period"] ? "period-stratified" : "post-stratified"
    }
}

extension Wording {
    /// Two rates and the difference the comparison gives: "from 23.64% to 25.12% (+1.48 pp)"; where the
    /// difference is a stratified or adjusted estimate, the rates are said to be pooled and the estimate is named,
    /// so the figures never read as an arithmetic error.
    static func change(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        let m = c.metric
        let from = value(m, r.control.metric(m)?.rate, in: r.currency)
        let to = value(m, r.variants.first { $0.key == c.variant }?.metric(m)?.rate, in: r.currency)
        let difference = self.difference(m, c.absoluteDiff, in: r.currency)
        guard let name = c.estimateName else { return "from \(from) to \(to) (\(difference))" }
        return "from \(from) to \(to) pooled (the \(name) difference is \(difference))"
    }
}
