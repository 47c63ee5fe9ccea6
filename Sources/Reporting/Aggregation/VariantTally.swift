import Events
import ExperimentDefinitions

/// One variant's sufficient statistics, gathered in one pass over its users.
///
/// Everything here grows with the number of distinct days, sources or trial starters,
/// never with the number of events: the report never sees an event.
public struct VariantTally: Sendable, Equatable {
    public static let curveDays = 30

    public var key: String
    /// Exposed users counted (forced users and unknown variants left out).
    public var users = 0
    /// Per metric of the report (in `ReportAccumulator.metrics` order): users in the denominator
    /// (exposed users, trial starters or payers inside the metric's window) ...
    public private(set) var denominators: [Int]
    /// ... and users in the numerator; for revenue, users whose net revenue is not zero.
    public private(set) var counts: [Int]
    /// For revenue metrics, each non-zero net revenue in row order (zeros are implied by the denominator),
    /// kept so a percentile cap can be computed over all variants before anything is summed.
    public private(set) var values: [[Double]]
    /// Per metric, users left out of the denominator because what it needs of them cannot be told:
    /// trial starters of unknown trial length, for `trial_cancel_rate`.
    public private(set) var leftOut: [Int]
    /// Users of this variant exposed to another variant later (a crossover: they stay here).
    public var crossedOver = 0
    /// Users the sample ratio check counts: those first exposed before the experiment's first safeguard stop.
    public var usersBeforeFirstStop = 0
    /// `usersByAge[d]`: users first exposed d whole days before the as-of time (the last entry: that
    /// many or more). Maturity (who is old enough) and the arrival rate of the last 7 days read it.
    public private(set) var usersByAge = Array(repeating: 0, count: maxAgeDays + 1)
    public static let maxAgeDays = 400
    /// Offers, up to the as-of time: trial starters, those whose store-granted `trial_days`
    /// differs from the arm's, and purchasers (users who paid with no trial start).
    public var offerTrialStarts = 0
    public var offerTrialDiffers = 0
    public var offerPurchasers = 0
    /// The granted trials that differed: users by days granted.
    public var offerGrantedDays: [Int: Int] = [:]
    /// Survival from trial start to the subscription's end, one entry per trial starter: days, and whether an end was seen.
    public var survivalDays: [Double] = []
    public var survivalCancelled: [Bool] = []
    /// The trial starters' ends by kind (a cancel that stood, or an expiry by its reason).
    public var ends: [SubscriptionEndKind: Int] = [:]
    /// Users with an `uncancelled`, and those with one that followed no cancel (it changed nothing).
    public var uncancelled = 0
    public var strayUncancelled = 0
    /// `followUp[f][p]`: users followed for `f` whole days (capped at `curveDays`) who first paid on
    /// day `p` after exposure (`curveDays + 1` = not paid within the follow-up). Feeds the cumulative
    /// conversion curve (a Kaplan–Meier estimate over days, censored at each user's follow-up)
    /// without keeping per-user data.
    public var followUp: [[Int]] = Array(repeating: Array(repeating: 0, count: curveDays + 2), count: curveDays + 1)
    /// Users and paid users per copy source, at its `copySourceSlot`: counted by case, so no row makes
    /// or compares a string.
    var copySourceUserCounts = Array(repeating: 0, count: copySourceSlots)
    var copySourcePaidCounts = Array(repeating: 0, count: copySourceSlots)
    /// Users by `copy_source`, of the sources seen.
    public var copySourceUsers: [String: Int] { copySourceCounts(copySourceUserCounts) }
    /// Paid users by `copy_source`, of the sources seen.
    public var copySourcePaid: [String: Int] { copySourceCounts(copySourcePaidCounts) }

    /// A copy source's place in the counts: none first (named "unknown"), then each case. A switch, so
    /// a row's place costs no lookup.
    static func copySourceSlot(_ source: CopySource?) -> Int {
        switch source {
        case nil: 0
        case .static?: 1
        case .template?: 2
        case .onDevice?: 3
        case .server?: 4
        case .fallback?: 5
        }
    }
    static let copySourceSlots = 1 + CopySource.allCases.count

    private func copySourceCounts(_ counts: [Int]) -> [String: Int] {
        var named: [String: Int] = [:]
        for source in [nil] + CopySource.allCases.map(Optional.some) where copySourceUserCounts[Self.copySourceSlot(source)] > 0 {
            named[source?.rawValue ?? "unknown"] = counts[Self.copySourceSlot(source)]
        }
        return named
    }
    /// Fallback reasons of users whose copy source was `fallback` (or who carried a reason).
    public var fallbackReasons: [String: Int] = [:]

    /// For sequential experiments: per metric slot (filled for rates without a horizon), how many users entered the
    /// denominator and the numerator on each day since the accumulator's look origin. Empty otherwise.
    public private(set) var dailyDenominators: [[Int]] = []
    public private(set) var dailyNumerators: [[Int]] = []

    /// Users first exposed at least `days` whole days before the as-of time.
    public func users(olderThan days: Int) -> Int {
        usersByAge[min(max(days, 0), Self.maxAgeDays)...].reduce(0, +)
    }

    public init(key: String, metrics: Int, lookDays: Int = 0) {
        self.key = key
        denominators = Array(repeating: 0, count: metrics)
        counts = denominators
        leftOut = denominators
        values = Array(repeating: [], count: metrics)
        if lookDays > 0 {
            dailyDenominators = Array(repeating: Array(repeating: 0, count: lookDays), count: metrics)
            dailyNumerators = dailyDenominators
        }
    }

    /// A tally of one metric slot from its figures alone: the primary metric as of one day of the timeline.
    init(key: String, denominator: Int, count: Int, values: [Double]) {
        self.init(key: key, metrics: 1)
        denominators[0] = denominator
        counts[0] = count
        self.values[0] = values
    }

    /// What a metric slot counts, as plain values: a `MetricDefinition` carries strings, and copying
    /// one per user and metric would cost reference counting on every row.
    struct SlotRule: Sendable {
        /// The fact that puts a user in the denominator.
        let unit: UserOutcome.Fact
        /// The numerator's fact for a proportion; nil for mean revenue.
        let numerator: UserOutcome.Fact?
        /// Day-0 cancels: a trial starter enters only once the Day-0 window has passed (maturity).
        let needsDay0WindowPassed: Bool
        /// Cancels during the trial: a trial starter enters only when the length of its own trial is known.
        let needsTrialLength: Bool
        /// A mean of proceeds, not of gross revenue.
        let proceeds: Bool

        init(_ d: MetricDefinition) {
            unit = d.unit.fact
            proceeds = d.isProceeds
            if case .proportion(let n) = d.statistic { numerator = n } else { numerator = nil }
            needsDay0WindowPassed = numerator == .day0Cancel
            needsTrialLength = numerator == .trialCancel
        }

        /// When the user entered the denominator, or nil when not (yet) in it. `trialLengthKnown`: whether
        /// the length of the user's own trial is known (without it a trial cancel cannot be told from a later one).
        @inline(__always)
        func entered(_ outcome: UserOutcome, trialLengthKnown: Bool = true) -> Int64? {
            if needsDay0WindowPassed && !outcome.day0WindowPassed { return nil }
            if needsTrialLength && !trialLengthKnown { return nil }
            return outcome.time(unit)
        }
    }

    /// Counts one user in metric slot `m`, from the user's outcome inside that metric's window.
    @inline(__always)
    mutating func record(_ m: Int, _ rule: SlotRule, _ outcome: UserOutcome, trialLengthKnown: Bool = true) {
        guard rule.entered(outcome, trialLengthKnown: trialLengthKnown) != nil else {
            if rule.needsTrialLength && !trialLengthKnown && outcome.trialStart != nil { leftOut[m] += 1 }
            return
        }
        denominators[m] += 1
        if let numerator = rule.numerator {
            if outcome.time(numerator) != nil { counts[m] += 1 }
        } else {
            let value = rule.proceeds ? outcome.proceeds : outcome.revenue
            if value != 0 {
                counts[m] += 1
                values[m].append(value)
            }
        }
    }

    /// Counts one user in each of `slots`, from the user's outcome inside their window: one access to the
    /// tally per window rather than per slot.
    @inline(__always)
    mutating func record(_ slots: [(slot: Int, rule: SlotRule)], _ outcome: UserOutcome, trialLengthKnown: Bool = true) {
        for (m, rule) in slots { record(m, rule, outcome, trialLengthKnown: trialLengthKnown) }
    }

    /// Adds another tally's metric counts, denominators and revenue values (segment cells pooled together).
    mutating func absorbCounts(of other: VariantTally) {
        for m in denominators.indices {
            denominators[m] += other.denominators[m]
            counts[m] += other.counts[m]
            leftOut[m] += other.leftOut[m]
            values[m] += other.values[m]
        }
    }

    /// Counts one user's entry into metric slot `m`'s denominator on `day`, and into its numerator on `numeratorDay`.
    mutating func recordLook(_ m: Int, day: Int, numeratorDay: Int?) {
        dailyDenominators[m][day] += 1
        if let numeratorDay { dailyNumerators[m][numeratorDay] += 1 }
    }

    static let microsPerDay = 86_400_000_000.0

    /// Adds one user's survival, follow-up and copy-source data (the metric slots are counted by `record`).
    /// `trial.cancelAfter` is microseconds from trial start to the first cancel; `censorAfter` is
    /// microseconds from trial start to the "as of" time.
    mutating func recordUser(paid isPaid: Bool, trial: (start: Int64, cancelAfter: Int64?)?, followedDays: Int, paidDay: Int,
                             censorAfter: Int64, copySource: CopySource?, fallbackReason: String?, ageDays: Int) {
        users += 1
        usersByAge[min(ageDays, Self.maxAgeDays)] += 1
        if let trial {
            if let elapsed = trial.cancelAfter {
                survivalDays.append(Double(elapsed) / Self.microsPerDay)
                survivalCancelled.append(true)
            } else {
                survivalDays.append(Double(censorAfter) / Self.microsPerDay)
                survivalCancelled.append(false)
            }
        }
        followUp[followedDays][paidDay] += 1
        let slot = Self.copySourceSlot(copySource)
        copySourceUserCounts[slot] += 1
        if isPaid { copySourcePaidCounts[slot] += 1 }
        if let fallbackReason, !fallbackReason.isEmpty {
            fallbackReasons[fallbackReason, default: 0] += 1
        } else if copySource == .fallback {
            fallbackReasons["unspecified", default: 0] += 1
        }
    }

    /// Revenue by day since exposure for the realised-LTV chart, for users with revenue only: per such
    /// user the whole days followed (capped at `curveDays`) and where its entries start in the flat lists
    /// of (day, amount) below. Users without revenue are in `followUp`, which gives the users at risk.
    public private(set) var ltvFollowed: [Int] = []
    public private(set) var ltvEntryStart: [Int] = []
    /// A day fits a byte (at most `curveDays`): the list has an item per revenue event, and Int-wide items
    /// cost a report on a million users tens of megabytes of fresh pages.
    public private(set) var ltvEntryDay: [UInt8] = []
    public private(set) var ltvEntryAmount: [Double] = []

    /// Keeps a user's revenue entries seen by the as-of time (`observedFor` microseconds after exposure)
    /// on days 0 to `followedDays`.
    mutating func recordRevenueByDay<Entries: Collection<RevenueEntry>>(_ entries: Entries, followedDays: Int, observedFor: Int64) {
        guard !entries.isEmpty else { return }
        ltvFollowed.append(followedDays)
        ltvEntryStart.append(ltvEntryDay.count)
        for e in entries where e.offset < observedFor {
            let day = Int(e.offset / 86_400_000_000)
            guard day <= followedDays else { continue }
            ltvEntryDay.append(UInt8(day))
            ltvEntryAmount.append(e.amount)
        }
    }

    /// Users followed `f` days who paid on day `p` since exposure (`p == curveDays + 1`: not paid while followed).
    public func followUpCount(followed f: Int, paidDay p: Int) -> Int { followUp[f][p] }
}
