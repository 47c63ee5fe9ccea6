import ExperimentDefinitions
import Foundation

/// The report's `timeline`: the day-by-day tallies of `TimelineTally` summed up to each chosen day
/// and compared exactly as the report compares the primary (the same tests, the revenue cap taken
/// over that day's values, and the same stratification by allocation period or `adjust_for`), so
/// each point is the comparison a report run to that day's end gives.
enum TimelineAnalysis {
    static func timeline(_ acc: ReportAccumulator, alpha: Double) throws -> Timeline {
        let experiment = acc.experiment
        let keys = experiment.variants.map(\.key)
        guard let t = acc.timeline else {
            return Timeline(metric: experiment.metrics.primary, variants: keys, points: [],
                            nullReason: "the primary metric is a forecast, which is computed as of the report's moment only, not day by day")
        }
        guard t.days > 0 else {
            return Timeline(metric: t.metric, variants: keys, points: [], nullReason: "the experiment had not started by the report's moment")
        }
        let arms = keys.count
        // Without a start (or `since`), the timeline begins on the first day with a user.
        let first = experiment.start == nil && acc.options.since == nil
            ? (0..<t.days).first { d in t.users.contains { $0[d] > 0 } } ?? t.days : 0
        let cells = max(1, t.entered.count)
        var users = Array(repeating: 0, count: arms)
        var denominators = Array(repeating: Array(repeating: 0, count: arms), count: cells)
        var counts = denominators
        var summed = 0
        var points: [Timeline.Point] = []
        for day in pointDays(from: first, to: t.days) {
            while summed <= day {
                for v in 0..<arms { users[v] += t.users[v][summed] }
                for c in 0..<t.entered.count {
                    for v in 0..<arms {
                        denominators[c][v] += t.entered[c][v][summed]
                        counts[c][v] += t.counted[c][v][summed]
                    }
                }
                summed += 1
            }
            let values = t.metric.isRevenue ? revenueValues(t, day: day, cells: cells, arms: arms) : nil
            func tally(_ c: Int?, _ v: Int) -> VariantTally {
                let (n, k) = c.map { (denominators[$0][v], counts[$0][v]) }
                    ?? (denominators.reduce(0) { $0 + $1[v] }, counts.reduce(0) { $0 + $1[v] })
                var list: [Double] = []
                if let values { list = c.map { values.byCell[$0][v] } ?? values.byArm[v] }
                return VariantTally(key: keys[v], denominator: n, count: k, values: list)
            }
            let whole = (0..<arms).map { tally(nil, $0) }
            let cap = try values.flatMap { try RevenueCapping.cap(experiment.metrics.revenueCap, values: $0.byArm) }
            let byCell = t.split == nil ? [] : (0..<cells).map { cell in (0..<arms).map { tally(cell, $0) } }
            var comparisons: [ComparisonResult] = []
            for v in 1..<max(1, arms) {
                var c = t.metric.isRevenue
                    ? try ReportAnalyzer.compareRevenue(t.metric, control: try RevenueCapping.summary(values: whole[0].values[0], users: whole[0].denominators[0], cap: cap),
                                                        variant: try RevenueCapping.summary(values: whole[v].values[0], users: whole[v].denominators[0], cap: cap),
                                                        key: keys[v], cap: cap, alpha: alpha)
                    : try ReportAnalyzer.compareRates(t.metric, slot: 0, whole[0], whole[v], alpha: alpha, experiment: experiment, chances: false)
                if let split = t.split, c.absoluteDiff != nil {
                    c = try PostStratifiedComparisons.adjusted(c, cells: byCell, attributes: acc.splits[split].attributes, variant: v, slot: 0,
                                                               cap: cap, alpha: alpha, sequential: experiment.metrics.sequential,
                                                               periods: split == acc.periodSplit)
                }
                comparisons.append(c)
            }
            points.append(Timeline.Point(date: date(t.origin + Int64(day) * TimelineTally.microsPerDay), asOf: date(t.cut(day)),
                                         users: users, comparisons: comparisons))
        }
        return Timeline(metric: t.metric, variants: keys, points: points, nullReason: points.isEmpty ? "no users yet" : nil)
    }

    /// Days `from..<to`, all of them up to `Timeline.maxPoints`, else that many evenly spaced, the first and the last among them.
    static func pointDays(from: Int, to: Int) -> [Int] {
        let n = to - from
        guard n > Timeline.maxPoints else { return Array(from..<max(from, to)) }
        var days: [Int] = []
        for i in 0..<Timeline.maxPoints {
            let d = from + Int((Double(i) * Double(n - 1) / Double(Timeline.maxPoints - 1)).rounded())
            if days.last != d { days.append(d) }
        }
        return days
    }

    /// Each payer's non-zero value as of `day`'s cut, in the order the report reads users: per arm, and per cell and arm.
    static func revenueValues(_ t: TimelineTally, day: Int, cells: Int, arms: Int) -> (byArm: [[Double]], byCell: [[[Double]]]) {
        var byArm = Array(repeating: [Double](), count: arms)
        var byCell = Array(repeating: Array(repeating: [Double](), count: arms), count: cells)
        for p in t.payerCell.indices {
            let end = p + 1 < t.payerSteps.count ? t.payerSteps[p + 1] : t.stepDay.count
            var value = 0.0
            for s in t.payerSteps[p]..<end {
                guard t.stepDay[s] <= day else { break }
                value = t.stepValue[s]
            }
            guard value != 0 else { continue }
            byArm[t.payerArm[p]].append(value)
            byCell[t.payerCell[p]][t.payerArm[p]].append(value)
        }
        return (byArm, byCell)
    }

    static func date(_ micros: Int64) -> Date { Date(timeIntervalSince1970: Double(micros) / 1_000_000) }
}
