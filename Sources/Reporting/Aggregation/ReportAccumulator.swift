import Events
import ExperimentDefinitions
import Foundation

/// Reads one experiment's per-user rows once and keeps per-variant sufficient statistics.
///
/// Feed rows with `add(_:)` in any order; memory grows with trial starters (for the
/// survival curves) and not with events. Forced users, rows of variants the experiment no
/// longer has, and events after the "as of" time are left out, and counted so the report can say so.
public struct ReportAccumulator: Sendable {
    public let experiment: Experiment
    public let options: ReportOptions
    /// What the report read from its store besides the facts, the as-of moment among it.
    public let inputs: ReportInputs
    /// The report's metrics: every metric of the table, then the horizon metrics the file names
    /// (`MetricsConfig.reported`); each tally keeps one slot per metric in this order.
    public let metrics: [Metric]
    public private(set) var tallies: [VariantTally]
    /// Counted users exposed to more than one variant (each stays in its first).
    public private(set) var crossoverUsers = 0
    /// Per variant, the users counted who are persons of several ids (the `identity_imbalance` warning).
    public private(set) var usersOfSeveralIds: [Int]
    /// Forced (QA) users left out.
    public private(set) var forcedUsers = 0
    /// People exposed here and to another experiment of the namespace (`namespace_conflicts`), and
    /// those of them left out here because they saw the other one first.
    public private(set) var namespaceConflicts = 0
    public private(set) var exposedToNeighbourFirst = 0
    /// Rows whose variant the experiment does not have, by variant key.
    public private(set) var unknownVariants: [String: Int] = [:]
    /// Users first exposed before the experiment's `start`, or at/after its `end`.
    public private(set) var exposedBeforeStart = 0
    public private(set) var exposedAfterEnd = 0
    /// Users first exposed after the "as of" time (clock skew, or `--until` without a store bound); left out.
    public private(set) var exposedAfterAsOf = 0
    /// Users first exposed to an arm while a safeguard stop held it, by variant key: left out, since
    /// they were shown the control's paywall (the arm is reported as of its stop).
    public private(set) var exposedWhileStopped: [String: Int] = [:]
    /// The experiment's safeguard stops made by the as-of time, oldest first (a reset after it had not happened yet).
    public let safeguards: [SafeguardStop]
    /// The first safeguard stop made by the as-of time: the sample ratio check counts only users
    /// first exposed before it, because a stopped arm takes no new users after it.
    public let firstStop: Int64?
    public private(set) var firstExposure: Int64?
    public private(set) var lastExposure: Int64?
    /// Users split by segment: one per `options.segments` dimension, in order, then the
    /// post-stratification strata when the experiment has `metrics.adjust_for` (`strataSplit`).
    public private(set) var splits: [SplitTally]
    /// The index of the strata in `splits`, or nil without `metrics.adjust_for`.
    public let strataSplit: Int?
    /// For a bandit, the index in `splits` of its allocation periods (cell key: the period's index,
    /// from the first exposure's echoed `allocation_period`, else its time); nil otherwise.
    public let periodSplit: Int?
    /// The parts of a facts row this report reads: attributes only when a split asks for them (segments,
    /// post-stratification); revenue entries always, since every report cuts revenue at its as-of
    /// moment, shows proceeds and revenue by day and forecasts from them (only payers have any).
    public var factFields: FactFields {
        splits.contains { !$0.attributes.isEmpty } ? .all : .revenueEntries
    }
    /// The current row's cell in each split (kept to reuse its storage).
    private var rowCells: [Int] = []
    /// The current row's revenue, then proceeds, within each horizon of `horizons` (kept to reuse its storage).
    private var horizonSums: [Double] = []
    /// Some counted proceeds are the revenue less the store's cut: tax is not known ("proceeds before tax").
    public private(set) var proceedsBeforeTax = false
    /// Each arm's mature users in the cells of the revenue forecast.
    public private(set) var forecast: ForecastAccumulator
    /// The verdict's primary metric day by day (the report's `timeline`); nil when it is a forecast.
    public private(set) var timeline: TimelineTally?

    private let keys: [String]
    /// The forced ids when there are a few (QA devices): compared directly, cheaper than hashing every row's id;
    /// and their UTF-8, which a batch's rows are compared with (ids are told apart by their bytes).
    private let fewForced: [UserID]?
    private let fewForcedBytes: [[UInt8]]
    /// The arm of each of the current batch's variants (-1: not the experiment's), kept to reuse its storage.
    private var batchArms: [Int] = []
    private let asOf: Int64
    private let start: Int64?
    private let end: Int64?
    /// What a user's outcome is worked out from besides the row (`OutcomeRules`).
    private let rules: OutcomeRules
    /// Whether each arm shows a paywall of its own (a holdout's arms do not).
    private let showsPaywall: [Bool]
    /// Metric slots grouped by window: the first group has no horizon (everything up to the as-of time),
    /// then one group per distinct horizon, so each user's outcome is worked out once per window.
    private let windows: [(horizon: Int64?, slots: [(slot: Int, rule: VariantTally.SlotRule)])]
    /// The horizons of `windows[1...]`, in the same order.
    private let horizons: [Int64]
    /// Slots of rates without a horizon, whose daily counts sequential looks replay.
    private let lookSlots: [(slot: Int, rule: VariantTally.SlotRule)]
    /// Per arm, when its users got the control's paywall: from each stop made by the as-of time
    /// to its reset, or on (`Int64.max`).
    private let stoppedSpans: [[(from: Int64, to: Int64)]]

    static let microsPerDay: Int64 = 86_400_000_000
    /// Sequential looks: one per UTC day from `lookOrigin` (the day of `since`, else of the experiment's start,
    /// else ten years before the as-of time) to the as-of day, at most ten years' worth.
    public let lookOrigin: Int64
    public let lookDays: Int

    /// - Parameter inputs: what the store gave (`ReportInputs.read`); without a store, the as-of
    ///   moment of `options` alone.
    public init(experiment: Experiment, options: ReportOptions, inputs: ReportInputs? = nil) {
        let inputs = inputs ?? ReportInputs(options: options)
        self.experiment = experiment
        self.options = options
        self.inputs = inputs
        keys = experiment.variants.map(\.key)
        fewForced = experiment.forced.count <= 8 ? Array(experiment.forced.keys) : nil
        fewForcedBytes = fewForced?.map { Array($0.text.utf8) } ?? []
        asOf = ReportOptions.micros(inputs.asOf)
        let asOfDay = Self.floorDay(asOf)
        let maxDays: Int64 = 3653
        let origin = max(asOfDay - (maxDays - 1) * Self.microsPerDay,
                         Self.floorDay((options.since ?? experiment.start).map(ReportOptions.micros) ?? asOfDay - (maxDays - 1) * Self.microsPerDay))
        lookOrigin = min(origin, asOfDay)
        lookDays = experiment.metrics.sequential ? Int((asOfDay - lookOrigin) / Self.microsPerDay) + 1 : 0
        // The forecast metric is read from the forecast, not tallied.
        let metrics = experiment.metrics.reported(maturityDays: experiment.maturityDays).filter { !$0.isForecast }
        self.metrics = metrics
        forecast = ForecastAccumulator(experiment: experiment, products: options.products ?? Products(currency: "", offerings: [:]), asOf: inputs.asOf)
        tallies = experiment.variants.map { [lookDays] in VariantTally(key: $0.key, metrics: metrics.count, lookDays: lookDays) }
        usersOfSeveralIds = Array(repeating: 0, count: experiment.variants.count)
        var windows: [(horizon: Int64?, slots: [(slot: Int, rule: VariantTally.SlotRule)])] = [(nil, [])]
        for (slot, m) in metrics.enumerated() {
            let horizon = m.horizonDays.map { Int64($0) * Self.microsPerDay }
            if let w = windows.firstIndex(where: { $0.horizon == horizon }) {
                windows[w].slots.append((slot, VariantTally.SlotRule(m.definition)))
            } else {
                windows.append((horizon, [(slot, VariantTally.SlotRule(m.definition))]))
            }
        }
        self.windows = windows
        horizons = windows.dropFirst().map { $0.horizon! }
        horizonSums = Array(repeating: 0, count: 2 * horizons.count)
        lookSlots = windows[0].slots.filter { $0.rule.numerator != nil }
        start = experiment.start.map(ReportOptions.micros)
        end = experiment.end.map(ReportOptions.micros)
        rules = OutcomeRules(experiment)
        showsPaywall = experiment.variants.map { $0.paywall != nil }
        let variantKeys = experiment.variants.map(\.key), metricCount = metrics.count
        var splits = options.segments.map { SplitTally(name: $0, attributes: [$0], variantKeys: variantKeys, metrics: metricCount) }
        let adjust = experiment.metrics.adjustFor
        strataSplit = adjust.isEmpty ? nil : splits.count
        if !adjust.isEmpty {
            splits.append(SplitTally(name: adjust.joined(separator: " × "), attributes: adjust, variantKeys: variantKeys, metrics: metricCount))
        }
        if let allocation = experiment.allocation, let start = experiment.start {
            periodSplit = splits.count
            splits.append(SplitTally(name: "allocation period", attributes: [], variantKeys: variantKeys, metrics: metricCount) { exposure, echoed in
                String(allocation.periodIndex(firstExposure: exposure, echoed: echoed, start: start))
            })
        } else {
            periodSplit = nil
        }
        self.splits = splits
        var spans = Array(repeating: [(from: Int64, to: Int64)](), count: variantKeys.count)
        safeguards = ReportAnalyzer.safeguardsAsOf(inputs.safeguardStops.filter { $0.experiment == experiment.id }, asOf: inputs.asOf)
        for stop in safeguards {
            let span = (from: stop.stoppedAt.microseconds, to: stop.resetAt?.microseconds ?? .max)
            switch stop.action {
            case .stopArm: if let v = variantKeys.firstIndex(of: stop.arm) { spans[v].append(span) }
            case .stopExperiment: for v in variantKeys.indices.dropFirst() { spans[v].append(span) }
            }
        }
        stoppedSpans = spans
        firstStop = safeguards.first?.stoppedAt.microseconds
        let primary = ReportAccumulator.verdictPrimary(experiment, among: metrics)
        if metrics.contains(primary) {
            let split = periodSplit ?? (PostStratifiedComparisons.adjusts(primary, experiment) ? strataSplit : nil)
            timeline = TimelineTally(metric: primary, rule: VariantTally.SlotRule(primary.definition), split: split, experiment: experiment,
                                     options: options, asOf: asOf)
        }
    }

    /// The primary metric as the verdict reads it: its `_dN` form where maturity asks for it, when
    /// the report has that form, else the file's primary.
    static func verdictPrimary(_ experiment: Experiment, among metrics: [Metric]) -> Metric {
        let mature = experiment.metrics.primary.matureForm(days: experiment.maturityDays)
        return metrics.contains(mature) ? mature : experiment.metrics.primary
    }

    /// Counts one user.
    public mutating func add(_ row: UserFacts) {
        if !experiment.forced.isEmpty, fewForced.map({ $0.contains(row.userID) }) ?? (experiment.forced[row.userID] != nil) {
            forcedUsers += 1
            return
        }
        // A linear scan of a few keys beats hashing the key on every row.
        guard let v = keys.firstIndex(of: row.variant) else {
            unknownVariants[row.variant, default: 0] += 1
            return
        }
        count(row, arm: v)
    }

    /// Counts a batch of users (`FactBatch`), as `add` counts each: the batch's few variants are found
    /// among the arms once, and a row's id is compared with a few forced ids by its bytes.
    public mutating func add(_ batch: FactBatch) {
        batchArms.removeAll(keepingCapacity: true)
        for variant in batch.variants { batchArms.append(keys.firstIndex(of: variant) ?? -1) }
        batch.withRows { rows in
            for i in 0..<rows.count {
                if !experiment.forced.isEmpty, isForced(rows, i) {
                    forcedUsers += 1
                    continue
                }
                let v = batchArms[rows.variant(i)]
                guard v >= 0 else {
                    unknownVariants[batch.variants[rows.variant(i)], default: 0] += 1
                    continue
                }
                count(rows[i], arm: v)
            }
        }
    }

    private func isForced(_ rows: FactBatch.Rows, _ i: Int) -> Bool {
        guard fewForced != nil else { return experiment.forced[rows[i].userID] != nil }
        let id = rows.userIDBytes(i)
        return fewForcedBytes.contains { $0.count == id.count && $0.elementsEqual(id) }
    }

    /// Counts one user of arm `v`, neither forced nor of a variant the experiment lacks.
    private mutating func count<Row: FactRow>(_ row: Row, arm v: Int) {
        let exposure = row.firstExposureMicros
        // As of one moment: nothing at or after it counts, the first exposure included.
        guard exposure < asOf else { exposedAfterAsOf += 1; return }
        // A person exposed to another experiment of the namespace too counts in the one it saw first.
        if !inputs.namespaceNeighbourExposures.isEmpty, let other = inputs.namespaceNeighbourExposures[row.userID] {
            namespaceConflicts += 1
            if other < exposure { exposedToNeighbourFirst += 1; return }
        }
        if !stoppedSpans[v].isEmpty, stoppedSpans[v].contains(where: { $0.from <= exposure && exposure < $0.to }) {
            exposedWhileStopped[keys[v], default: 0] += 1
            return
        }
        if firstStop.map({ exposure < $0 }) ?? true { tallies[v].usersBeforeFirstStop += 1 }
        if let start, exposure < start { exposedBeforeStart += 1 }
        if let end, exposure >= end { exposedAfterEnd += 1 }
        firstExposure = min(firstExposure ?? exposure, exposure)
        lastExposure = max(lastExposure ?? exposure, exposure)
        forecast.record(row, arm: v)
        timeline?.addUser(arm: v, exposure: exposure)

        if !inputs.personsOfSeveralIds.isEmpty, inputs.personsOfSeveralIds.contains(row.userID) { usersOfSeveralIds[v] += 1 }
        if row.crossedOver {
            crossoverUsers += 1
            tallies[v].crossedOver += 1
        }

        // Before the as-of time (revenue too, from the row's entries), then each horizon's window.
        // A Day-0 window that ends at the as-of moment has passed (the moment itself is after it).
        let takings = Self.takings(row, before: asOf)
        var o = rules.outcome(row, variant: v, before: asOf, windowsPassedBy: asOf + 1, revenue: takings.revenue)
        o.proceeds = takings.proceeds
        if takings.beforeTax { proceedsBeforeTax = true }
        let known = rules.ownTrial(row, variant: v) > 0
        if let u = row.firstUncancelMicros, u < asOf {
            tallies[v].uncancelled += 1
            if let stray = row.strayUncancelMicros, stray < asOf { tallies[v].strayUncancelled += 1 }
        }
        tallies[v].record(windows[0].slots, o, trialLengthKnown: known)
        recordOffer(row, o, variant: v)
        if !splits.isEmpty {
            rowCells.removeAll(keepingCapacity: true)
            for s in splits.indices {
                let c = splits[s].cell(of: row)
                rowCells.append(c)
                splits[s].addUser(cell: c, variant: v)
                splits[s].record(cell: c, variant: v, windows[0].slots, o, trialLengthKnown: known)
            }
        }
        if timeline != nil {
            let cell = timeline?.split.map { rowCells[$0] } ?? 0
            timeline?.recordToDate(row, o, arm: v, cell: cell, day0Window: rules.day0Window)
        }
        if !horizons.isEmpty { recordHorizons(row, variant: v, trialLengthKnown: known) }

        let cap = VariantTally.curveDays
        let followed = Int(min(Int64(cap), (asOf - exposure) / Self.microsPerDay))
        var paidDay = cap + 1
        if let paid = o.paid { paidDay = Int(min(Int64(cap + 1), (paid - exposure) / Self.microsPerDay)) }
        if paidDay > followed { paidDay = cap + 1 }
        var trial: (start: Int64, cancelAfter: Int64?)?
        if let trialStart = o.trialStart {
            // Survival runs to the subscription's end: a cancel that stood or an expiry, whichever came first.
            let end = row.end(before: asOf).flatMap { $0.at >= trialStart ? $0 : nil }
            trial = (trialStart, end.map { $0.at - trialStart })
            if let end { tallies[v].ends[end.kind, default: 0] += 1 }
        }
        if lookDays > 0 {
            func day(_ t: Int64) -> Int { Int(min(max(0, (t - lookOrigin) / Self.microsPerDay), Int64(lookDays - 1))) }
            for (slot, rule) in lookSlots {
                guard let entered = rule.entered(o, trialLengthKnown: known), let numerator = rule.numerator else { continue }
                tallies[v].recordLook(slot, day: day(entered), numeratorDay: o.time(numerator).map(day))
            }
        }
        // Mutate in place: a copy of the tally would copy its arrays on every row.
        tallies[v].recordUser(paid: o.paid != nil, trial: trial, followedDays: followed, paidDay: paidDay,
                              censorAfter: o.trialStart.map { max(0, asOf - $0) } ?? 0,
                              copySource: row.copySource, fallbackReason: row.copyFallbackReason,
                              ageDays: Int(min(Int64(VariantTally.maxAgeDays), (asOf - exposure) / Self.microsPerDay)))
        tallies[v].recordRevenueByDay(row.revenueEntries, followedDays: followed, observedFor: asOf - exposure)
    }

    /// Offers: trial starts (and whether the store granted another trial than the arm's), and
    /// purchasers, who paid with no trial (in an arm that offered one, the store gave none: the user was not eligible).
    @inline(__always)
    private mutating func recordOffer<Row: FactRow>(_ row: Row, _ o: UserOutcome, variant v: Int) {
        if o.trialStart != nil {
            tallies[v].offerTrialStarts += 1
            // An arm that shows no paywall (a holdout's) tested no offer: the trial came from elsewhere.
            if let granted = row.grantedTrialDays, showsPaywall[v], granted != rules.armTrialDays[v] {
                tallies[v].offerTrialDiffers += 1
                tallies[v].offerGrantedDays[granted, default: 0] += 1
            }
        } else if o.paid != nil {
            tallies[v].offerPurchasers += 1
        }
    }

    /// Counts `row`'s user in each horizon window it has been followed for: what it did in its first N days.
    /// One pass over the revenue entries sums every horizon's revenue, each in entry order as the facts keep it.
    private mutating func recordHorizons<Row: FactRow>(_ row: Row, variant v: Int, trialLengthKnown known: Bool) {
        let exposure = row.firstExposureMicros
        let count = horizons.count
        let timelineHorizon = timeline?.horizon
        let timelineCell = timeline?.split.map { rowCells[$0] } ?? 0
        // The sums in storage kept between rows, written in place: a closure over `self` (a temporary
        // allocation's) copied the whole accumulator on every row.
        for i in horizonSums.indices { horizonSums[i] = 0 }
        for e in row.revenueEntries {
            for w in 0..<count where e.offset < horizons[w] {
                horizonSums[w] += e.amount
                horizonSums[count + w] += e.proceeds
            }
        }
        for w in 0..<count {
            let horizon = horizons[w]
            guard exposure + horizon <= asOf else { continue }
            var o = rules.outcome(row, variant: v, before: exposure + horizon, revenue: horizonSums[w])
            o.proceeds = horizonSums[count + w]
            tallies[v].record(windows[w + 1].slots, o, trialLengthKnown: known)
            for s in splits.indices { splits[s].record(cell: rowCells[s], variant: v, windows[w + 1].slots, o, trialLengthKnown: known) }
            if horizon == timelineHorizon {
                timeline?.recordMature(o, arm: v, cell: timelineCell, exposure: exposure)
            }
        }
    }

    /// What the row's user brought in by `limit` (µs), in one pass over its revenue entries: the net
    /// revenue, the facts' total to date when every entry is before `limit` (the usual case), else the
    /// entries before it, so a report as of an earlier moment cuts revenue there however the moment
    /// was given; the proceeds of the entries before it, each sum in entry order; and whether some
    /// of those proceeds are before tax.
    @inline(__always)
    static func takings<Row: FactRow>(_ row: Row, before limit: Int64) -> (revenue: Double, proceeds: Double, beforeTax: Bool) {
        guard !row.revenueEntries.isEmpty else { return (row.netRevenue, 0, false) }
        let cut = limit - row.firstExposureMicros
        var revenue = 0.0, proceeds = 0.0, beforeTax = false, cutShort = false
        for e in row.revenueEntries {
            guard e.offset < cut else { cutShort = true; continue }
            revenue += e.amount
            proceeds += e.proceeds
            if e.proceedsBeforeTax { beforeTax = true }
        }
        return (cutShort ? revenue : row.netRevenue, proceeds, beforeTax)
    }

    /// The slot of `metric` in `metrics`.
    public func slot(_ metric: Metric) -> Int? { metrics.firstIndex(of: metric) }

    /// Variant `v`'s numerator and denominator in `metric`, and for revenue the non-zero values, uncapped.
    public func tally(_ metric: Metric, variant v: Int) -> (count: Int, denominator: Int, values: [Double]) {
        guard let s = slot(metric) else { return (0, 0, []) }
        return (tallies[v].counts[s], tallies[v].denominators[s], tallies[v].values[s])
    }

    static func floorDay(_ t: Int64) -> Int64 {
        let q = t / microsPerDay
        return (t % microsPerDay < 0 ? q - 1 : q) * microsPerDay
    }

    /// Counted users in all variants.
    public var users: Int { tallies.reduce(0) { $0 + $1.users } }
}
