import Events
import ExperimentDefinitions

/// The verdict's primary metric day by day, gathered in the report's one pass over its users: for
/// each user, the day it entered the metric's denominator and numerator as the report as of that
/// day's end would count them (the maturity rule read at that day), and for revenue the user's value
/// from each day it changed. Everything is kept by day and summed afterwards, so the cost is a few
/// integer operations per user and per payer's revenue entry, not one report per day.
///
/// Day `k` is the UTC day `origin + k`; its cut (the as-of moment of a report run to its end) is the
/// next midnight, or the report's as-of moment for the last day.
public struct TimelineTally: Sendable {
    /// The metric the verdict reads for the primary: its `_dN` form where maturity asks for it.
    public let metric: Metric
    /// The first day's midnight (µs): the day of `since`, else of the experiment's start, else of the
    /// earliest day kept (ten years before the as-of day).
    public let origin: Int64
    /// Days from `origin` to the day of the as-of moment's last instant; 0 when the as-of moment is
    /// not after `origin`.
    public let days: Int
    /// The index in `ReportAccumulator.splits` whose cells the primary's comparisons are stratified by
    /// (a bandit's periods, or the `adjust_for` strata), or nil for plain comparisons.
    public let split: Int?
    /// The metric's window: nil to date, else its horizon (µs).
    let horizon: Int64?
    let rule: VariantTally.SlotRule
    let asOf: Int64
    let arms: Int

    /// `users[arm][day]`: users counted from that day on.
    public private(set) var users: [[Int]]
    /// `entered[cell][arm][day]`, `counted[cell][arm][day]`: users entering the metric's denominator,
    /// and for a rate its numerator, on that day.
    public private(set) var entered: [[[Int]]] = []
    public private(set) var counted: [[[Int]]] = []
    /// Revenue: per user with a non-zero value on some day, its cell, arm, and where its steps start
    /// in `stepDay`/`stepValue` (the day from which the user's value is that amount, in day order).
    public private(set) var payerCell: [Int] = []
    public private(set) var payerArm: [Int] = []
    public private(set) var payerSteps: [Int] = []
    public private(set) var stepDay: [Int] = []
    public private(set) var stepValue: [Double] = []

    static let microsPerDay = ReportAccumulator.microsPerDay
    /// At most ten years of days, as the sequential looks keep.
    static let maxDays: Int64 = 3653

    init(metric: Metric, rule: VariantTally.SlotRule, split: Int?, experiment: Experiment, options: ReportOptions, asOf: Int64) {
        self.metric = metric
        self.rule = rule
        self.split = split
        self.asOf = asOf
        horizon = metric.horizonDays.map { Int64($0) * Self.microsPerDay }
        arms = experiment.variants.count
        let lastDay = ReportAccumulator.floorDay(asOf - 1)
        let earliest = lastDay - (Self.maxDays - 1) * Self.microsPerDay
        origin = max(earliest, ReportAccumulator.floorDay((options.since ?? experiment.start).map(ReportOptions.micros) ?? earliest))
        days = origin <= lastDay ? Int((lastDay - origin) / Self.microsPerDay) + 1 : 0
        users = Array(repeating: Array(repeating: 0, count: days), count: arms)
    }

    /// The cut of day `k`: the next midnight, or the as-of moment for the last day.
    public func cut(_ k: Int) -> Int64 { k == days - 1 ? asOf : origin + Int64(k + 1) * Self.microsPerDay }

    /// The first day whose cut is after `t` (a fact at `t` counts in a report as of a later moment).
    @inline(__always)
    func dayAfter(_ t: Int64) -> Int {
        Int(min(max(0, (t - origin) / Self.microsPerDay), Int64(days - 1)))
    }

    /// The first day whose cut is `t` or later (a window ending at `t` has passed at `t`).
    @inline(__always)
    func dayReaching(_ t: Int64) -> Int { dayAfter(t - 1) }

    @inline(__always)
    private mutating func cellIndex(_ c: Int) -> Int {
        while entered.count <= c {
            entered.append(Array(repeating: Array(repeating: 0, count: days), count: arms))
            counted.append(Array(repeating: Array(repeating: 0, count: days), count: arms))
        }
        return c
    }

    /// Counts a user of arm `v` first exposed at `exposure` (before the as-of moment).
    @inline(__always)
    mutating func addUser(arm v: Int, exposure: Int64) {
        guard days > 0 else { return }
        users[v][dayAfter(exposure)] += 1
    }

    /// A metric to date: `o` is the user's outcome as of the report's moment. The user enters the
    /// denominator the day its unit fact (for Day-0 cancels, the end of the Day-0 window) is before the
    /// cut, the numerator the day its numerator fact is too; revenue is cut at each day as the report cuts it.
    mutating func recordToDate<Row: FactRow>(_ row: Row, _ o: UserOutcome, arm v: Int, cell: Int, day0Window: Int64) {
        guard days > 0, horizon == nil, let unit = rule.entered(o) else { return }
        var day = dayAfter(unit)
        if rule.needsDay0WindowPassed, let trialStart = o.trialStart { day = max(day, dayReaching(trialStart + day0Window)) }
        let c = cellIndex(cell)
        entered[c][v][day] += 1
        if let numerator = rule.numerator {
            if let t = o.time(numerator) { counted[c][v][max(day, dayAfter(t))] += 1 }
            return
        }
        // Revenue: the value as a report as of each day's cut reads it, from each day an entry lands.
        guard !row.revenueEntries.isEmpty else { return }
        let exposure = row.firstExposureMicros
        var landing: [Int] = []
        for e in row.revenueEntries where exposure + e.offset < asOf {
            let d = max(day, dayAfter(exposure + e.offset))
            if !landing.contains(d) { landing.append(d) }
        }
        landing.sort()
        var opened = false
        for d in landing {
            let takings = ReportAccumulator.takings(row, before: self.cut(d))
            let value = rule.proceeds ? takings.proceeds : takings.revenue
            if !opened {
                guard value != 0 else { continue }
                opened = true
                payerCell.append(c)
                payerArm.append(v)
                payerSteps.append(stepDay.count)
            }
            stepDay.append(d)
            stepValue.append(value)
        }
    }

    /// A `_dN` metric: `o` is the user's outcome in its first N days, counted from the day those N
    /// days have passed (`exposure + N` at or before the cut), as a report then counts it.
    mutating func recordMature(_ o: UserOutcome, arm v: Int, cell: Int, exposure: Int64) {
        guard days > 0, let horizon, rule.entered(o) != nil else { return }
        let day = dayReaching(exposure + horizon)
        let c = cellIndex(cell)
        entered[c][v][day] += 1
        if let numerator = rule.numerator {
            if o.time(numerator) != nil { counted[c][v][day] += 1 }
            return
        }
        let value = rule.proceeds ? o.proceeds : o.revenue
        guard value != 0 else { return }
        payerCell.append(c)
        payerArm.append(v)
        payerSteps.append(stepDay.count)
        stepDay.append(day)
        stepValue.append(value)
    }
}
