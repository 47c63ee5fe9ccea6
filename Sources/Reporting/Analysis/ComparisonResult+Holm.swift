import Statistics

extension ComparisonResult {
    /// Holm across one family of comparisons (SPEC §5: the treatments of a metric, or the cells of a
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
}
