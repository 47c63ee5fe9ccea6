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
    public var trialStarters = 0
    /// Users with a `converted` or `purchased` (paid_conversion numerator).
    public var paid = 0
    /// Trial starters who converted (trial_to_paid numerator).
    public var trialConverted = 0
    /// Trial starters who cancelled within `day0_window_hours` of the trial start.
    public var day0Cancels = 0
    /// Trial starters who cancelled before the trial ended.
    public var trialCancels = 0
    /// Σ net revenue and Σ net revenue² over every user (zeros included).
    public var revenueSum = 0.0
    public var revenueSumOfSquares = 0.0
    /// Users whose net revenue is not zero.
    public var payingUsers = 0
    /// Survival from trial start to cancel, one entry per trial starter: days, and whether a cancel was seen.
    public var survivalDays: [Double] = []
    public var survivalCancelled: [Bool] = []
    /// `followUp[f][p]`: users followed for `f` whole days (capped at `curveDays`) who first paid on
    /// day `p` after exposure (`curveDays + 1` = not paid within the follow-up). Feeds the cumulative
    /// conversion curve (a Kaplan–Meier estimate over days, censored at each user's follow-up)
    /// without keeping per-user data.
    public var followUp: [[Int]] = Array(repeating: Array(repeating: 0, count: curveDays + 2), count: curveDays + 1)
    /// Copy sources seen, in first-seen order ("unknown" when the exposure carried none), with users
    /// and paid users per source. A short array searched linearly: cheaper per row than hashing.
    public private(set) var copySourceKeys: [String] = []
    var copySourceUserCounts: [Int] = []
    var copySourcePaidCounts: [Int] = []
    /// Users by `copy_source`.
    public var copySourceUsers: [String: Int] { Dictionary(uniqueKeysWithValues: zip(copySourceKeys, copySourceUserCounts)) }
    /// Paid users by `copy_source`.
    public var copySourcePaid: [String: Int] { Dictionary(uniqueKeysWithValues: zip(copySourceKeys, copySourcePaidCounts)) }
    /// Fallback reasons of users whose copy source was `fallback` (or who carried a reason).
    public var fallbackReasons: [String: Int] = [:]

    /// For sequential experiments: per rate metric (in `Metric.rates` order), how many users entered the
    /// denominator and the numerator on each day since the accumulator's look origin. Empty otherwise.
    public private(set) var dailyDenominators: [[Int]] = []
    public private(set) var dailyNumerators: [[Int]] = []

    public init(key: String, lookDays: Int = 0) {
        self.key = key
        if lookDays > 0 {
            dailyDenominators = Array(repeating: Array(repeating: 0, count: lookDays), count: Metric.rates.count)
            dailyNumerators = dailyDenominators
        }
    }

    /// Counts one user's entry into rate metric `m`'s denominator on `day`, and into its numerator on `numeratorDay`.
    mutating func recordLook(_ m: Int, day: Int, numeratorDay: Int?) {
        dailyDenominators[m][day] += 1
        if let numeratorDay { dailyNumerators[m][numeratorDay] += 1 }
    }

    static let microsPerDay = 86_400_000_000.0

    /// Adds one user. `trial.cancelAfter` is microseconds from trial start to the first cancel;
    /// `censorAfter` is microseconds from trial start to the "as of" time.
    mutating func record(paid isPaid: Bool, revenue: Double, trial: (start: Int64, cancelAfter: Int64?, converted: Bool)?,
                         followedDays: Int, paidDay: Int, censorAfter: Int64, day0Window: Int64, trialLength: Int64,
                         copySource: String?, fallbackReason: String?) {
        users += 1
        if isPaid { paid += 1 }
        revenueSum += revenue
        revenueSumOfSquares += revenue * revenue
        if revenue != 0 { payingUsers += 1 }
        if let trial {
            trialStarters += 1
            if trial.converted { trialConverted += 1 }
            if let elapsed = trial.cancelAfter {
                if elapsed <= day0Window { day0Cancels += 1 }
                if elapsed < trialLength { trialCancels += 1 }
                survivalDays.append(Double(elapsed) / Self.microsPerDay)
                survivalCancelled.append(true)
            } else {
                survivalDays.append(Double(censorAfter) / Self.microsPerDay)
                survivalCancelled.append(false)
            }
        }
        followUp[followedDays][paidDay] += 1
        let source = copySource ?? "unknown"
        var slot = copySourceKeys.firstIndex(of: source) ?? -1
        if slot < 0 {
            slot = copySourceKeys.count
            copySourceKeys.append(source)
            copySourceUserCounts.append(0)
            copySourcePaidCounts.append(0)
        }
        copySourceUserCounts[slot] += 1
        if isPaid { copySourcePaidCounts[slot] += 1 }
        if let fallbackReason, !fallbackReason.isEmpty {
            fallbackReasons[fallbackReason, default: 0] += 1
        } else if source == "fallback" {
            fallbackReasons["unspecified", default: 0] += 1
        }
    }

    /// Users followed `f` days who paid on day `p` since exposure (`p == curveDays + 1`: not paid while followed).
    public func followUpCount(followed f: Int, paidDay p: Int) -> Int { followUp[f][p] }
}
