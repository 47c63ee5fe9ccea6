import Statistics

extension ComparisonResult {
    /// Holm across one family of comparisons (the treatments of a metric, or the cells of a
    /// segment's metric and variant), the one place the report adjusts p-values: each comparison's
    /// `pValueAdjusted` from `MultipleTesting.holm` over the p-values that exist; one without a
    /// p-value keeps a null adjusted p-value, with its p-value's reason.
    static func adjustHolm(_ family: inout [ComparisonResult]) throws {
        let adjusted = try MultipleTesting.holm(family.map(\.pValue))
        for i in family.indices {
            family[i].pValueAdjusted = adjusted[i]
            if adjusted[i] == nil, let reason = family[i].nullReasons["p_value"] { family[i].nullReasons["p_value_adjusted"] = reason }
        }
    }

    /// `comparisons` with each of `replaced` (index → new comparison) put in its place, then Holm
    /// again over the treatments of every metric a replacement belongs to, from the new p-values.
    static func replacing(_ replaced: [Int: ComparisonResult], in comparisons: [ComparisonResult]) throws -> [ComparisonResult] {
        var out = comparisons
        for (i, c) in replaced { out[i] = c }
        let metrics = Set(replaced.values.map(\.metric))
        for metric in metrics {
            let rows = out.indices.filter { out[$0].metric == metric }
            var family = rows.map { out[$0] }
            try adjustHolm(&family)
            for (i, adjusted) in zip(rows, family) { out[i] = adjusted }
        }
        return out
    }
}
