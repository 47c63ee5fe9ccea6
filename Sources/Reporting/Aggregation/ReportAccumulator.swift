import Events
import ExperimentDefinitions
import Foundation

/// Reads one experiment's per-user rows once and keeps per-variant sufficient statistics.
///
/// Feed each user's `UserFacts` with `add(_:)` in any order; memory grows with trial starters (for the
/// survival curves) and not with events. Forced users, rows of variants the experiment no
/// longer has, and events after the "as of" time are left out, and counted so the report can say so.
public struct ReportAccumulator: Sendable {
    public let experiment: Experiment
    public let options: ReportOptions
    public private(set) var tallies: [VariantTally]
    /// Forced (QA) users left out.
    public private(set) var forcedUsers = 0
    /// Rows whose variant the experiment does not have, by variant key.
    public private(set) var unknownVariants: [String: Int] = [:]
    /// Users first exposed before the experiment's `start`, or at/after its `end`.
    public private(set) var exposedBeforeStart = 0
    public private(set) var exposedAfterEnd = 0
    /// Users first exposed after the "as of" time (clock skew, or `--until` without a store bound); left out.
    public private(set) var exposedAfterAsOf = 0
    public private(set) var firstExposure: Int64?
    public private(set) var lastExposure: Int64?

    private let keys: [String]
    private let asOf: Int64
    private let start: Int64?
    private let end: Int64?
    private let day0Window: Int64
    private let trialLength: [Int64]

    static let microsPerDay: Int64 = 86_400_000_000
    /// Sequential looks: one per UTC day from `lookOrigin` (the day of `since`, else of the experiment's start,
    /// else ten years before the as-of time) to the as-of day, at most ten years' worth.
    public let lookOrigin: Int64
    public let lookDays: Int

    public init(experiment: Experiment, options: ReportOptions) {
        self.experiment = experiment
        self.options = options
        keys = experiment.variants.map(\.key)
        asOf = ReportOptions.micros(options.asOf)
        let asOfDay = Self.floorDay(asOf)
        let maxDays: Int64 = 3653
        let origin = max(asOfDay - (maxDays - 1) * Self.microsPerDay,
                         Self.floorDay((options.since ?? experiment.start).map(ReportOptions.micros) ?? asOfDay - (maxDays - 1) * Self.microsPerDay))
        lookOrigin = min(origin, asOfDay)
        lookDays = experiment.metrics.sequential ? Int((asOfDay - lookOrigin) / Self.microsPerDay) + 1 : 0
        tallies = experiment.variants.map { [lookDays] in VariantTally(key: $0.key, lookDays: lookDays) }
        start = experiment.start.map(ReportOptions.micros)
        end = experiment.end.map(ReportOptions.micros)
        day0Window = Int64((experiment.metrics.day0WindowHours * 3_600_000_000).rounded())
        trialLength = experiment.variants.map { Int64($0.paywall.trialDays) * Self.microsPerDay }
    }

    /// Counts one user.
    public mutating func add(_ row: UserFacts) {
        if !experiment.forced.isEmpty, experiment.forced[row.userID] != nil {
            forcedUsers += 1
            return
        }
        // A linear scan of a few keys beats hashing the key on every row.
        guard let v = keys.firstIndex(of: row.variant) else {
            unknownVariants[row.variant, default: 0] += 1
            return
        }
        let exposure = row.firstExposure.microseconds
        guard exposure <= asOf else { exposedAfterAsOf += 1; return }
        if let start, exposure < start { exposedBeforeStart += 1 }
        if let end, exposure >= end { exposedAfterEnd += 1 }
        firstExposure = min(firstExposure ?? exposure, exposure)
        lastExposure = max(lastExposure ?? exposure, exposure)

        // What had happened by the "as of" time.
        func seen(_ t: Timestamp?) -> Int64? { t.flatMap { $0.microseconds <= asOf ? $0.microseconds : nil } }
        let trialStart = seen(row.trialStart)
        let paid = seen(row.firstPaid)
        let converted = seen(row.firstConverted)
        let cancel = seen(row.firstCancel)

        let cap = VariantTally.curveDays
        let followed = Int(min(Int64(cap), (asOf - exposure) / Self.microsPerDay))
        var paidDay = cap + 1
        if let paid, paid >= exposure { paidDay = Int(min(Int64(cap + 1), (paid - exposure) / Self.microsPerDay)) }
        if paidDay > followed { paidDay = cap + 1 }
        var trial: (start: Int64, cancelAfter: Int64?, converted: Bool)?
        if let trialStart {
            trial = (trialStart, cancel.flatMap { $0 >= trialStart ? $0 - trialStart : nil }, converted != nil)
        }
        if lookDays > 0 {
            func day(_ t: Int64) -> Int { Int(min(max(0, (t - lookOrigin) / Self.microsPerDay), Int64(lookDays - 1))) }
            let exposureDay = day(exposure)
            tallies[v].recordLook(0, day: exposureDay, numeratorDay: trialStart.map(day))
            tallies[v].recordLook(1, day: exposureDay, numeratorDay: paid.map(day))
            if let trialStart {
                let trialDay = day(trialStart)
                let elapsed = cancel.flatMap { $0 >= trialStart ? $0 - trialStart : nil }
                tallies[v].recordLook(2, day: trialDay, numeratorDay: converted.map(day))
                tallies[v].recordLook(3, day: trialDay, numeratorDay: elapsed.flatMap { $0 <= day0Window ? day(cancel!) : nil })
                tallies[v].recordLook(4, day: trialDay, numeratorDay: elapsed.flatMap { $0 < trialLength[v] ? day(cancel!) : nil })
            }
        }
        // Mutate in place: a copy of the tally would copy its arrays on every row.
        tallies[v].record(paid: paid != nil, revenue: row.netRevenue, trial: trial, followedDays: followed, paidDay: paidDay,
                          censorAfter: trialStart.map { max(0, asOf - $0) } ?? 0, day0Window: day0Window,
                          trialLength: trialLength[v], copySource: row.copySource?.rawValue, fallbackReason: row.copyFallbackReason)
    }

    static func floorDay(_ t: Int64) -> Int64 {
        let q = t / microsPerDay
        return (t % microsPerDay < 0 ? q - 1 : q) * microsPerDay
    }

    /// Counted users in all variants.
    public var users: Int { tallies.reduce(0) { $0 + $1.users } }
}
