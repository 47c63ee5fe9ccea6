import Events
import ExperimentDefinitions

/// The users of an experiment split by what they were at first exposure: one cell per value of a
/// `--by` dimension (docs/Segments.md), or per combination of the `metrics.adjust_for` attributes
/// (the strata of post-stratification). Each cell keeps, per variant, the same tally the whole
/// report keeps, so a cell's comparisons are computed exactly as the report's are.
public struct SplitTally: Sendable {
    /// The dimension (`country`), or for strata the attributes joined by `×`.
    public let name: String
    /// The attributes that make a cell's key: one for a dimension, several for strata.
    public let attributes: [String]
    /// Cell keys in first-seen order; a user without the attribute is in `(none)`.
    public private(set) var keys: [String] = []
    /// `cells[cell][variant]`.
    public private(set) var cells: [[VariantTally]] = []
    private var index: [String: Int] = [:]
    private let variantKeys: [String]
    private let metricCount: Int
    /// A cell key computed from the row's first exposure and echoed allocation period (a bandit's
    /// period) instead of attributes.
    let customKey: (@Sendable (_ firstExposure: Int64, _ allocationPeriod: Int64?) -> String)?

    init(name: String, attributes: [String], variantKeys: [String], metrics: Int,
         customKey: (@Sendable (_ firstExposure: Int64, _ allocationPeriod: Int64?) -> String)? = nil) {
        self.customKey = customKey
        self.name = name
        self.attributes = attributes
        self.variantKeys = variantKeys
        metricCount = metrics
    }

    /// The key of `row`'s cell: the attribute's label, or for several attributes `a=x, b=y`.
    func key<Row: FactRow>(of row: Row) -> String {
        if let customKey { return customKey(row.firstExposureMicros, row.allocationPeriodMicros) }
        if attributes.count == 1 { return row.segmentValue(attributes[0]) ?? Segments.noneValue }
        return attributes.map { "\($0)=\(row.segmentValue($0) ?? Segments.noneValue)" }.joined(separator: ", ")
    }

    /// The index of `row`'s cell, made on first sight.
    mutating func cell<Row: FactRow>(of row: Row) -> Int {
        let key = key(of: row)
        if let i = index[key] { return i }
        index[key] = cells.count
        keys.append(key)
        cells.append(variantKeys.map { VariantTally(key: $0, metrics: metricCount) })
        return cells.count - 1
    }

    /// Counts a user in cell `c`, variant `v`.
    mutating func addUser(cell c: Int, variant v: Int) { cells[c][v].users += 1 }

    /// Counts a user's outcome in `slots` of cell `c`, variant `v`.
    @inline(__always)
    mutating func record(cell c: Int, variant v: Int, _ slots: [(slot: Int, rule: VariantTally.SlotRule)], _ outcome: UserOutcome,
                         trialLengthKnown: Bool = true) {
        cells[c][v].record(slots, outcome, trialLengthKnown: trialLengthKnown)
    }
}
