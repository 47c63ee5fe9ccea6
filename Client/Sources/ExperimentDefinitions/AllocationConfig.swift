import Foundation

/// `allocation`: the arms' weights are learned. Only `bandit` exists: at each
/// period boundary of `update_hours` from `start`, each running arm's weight becomes its probability
/// of having the highest `reward` rate (floored at `min_share`), once every arm has `burn_in_users`
/// mature users; until then, and in the first period, the file's weights hold.
public struct AllocationConfig: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case bandit
    }

    public static let defaultUpdateHours = 24.0
    public static let defaultMinShare = 0.05
    public static let defaultBurnInUsers = 200

    public var type: Kind
    /// A higher-is-better rate over exposed users: `trial_start_rate` (mature 1 day after first
    /// exposure), `trial_start_rate_dN` or `paid_conversion_dN` (mature N days after).
    public var reward: Metric
    /// The length of one allocation period.
    public var updateHours: Double
    /// Every running arm's floor, at most 1 / number of arms.
    public var minShare: Double
    /// Mature users every arm needs before the weights move.
    public var burnInUsers: Int

    public init(type: Kind = .bandit, reward: Metric, updateHours: Double = defaultUpdateHours,
                minShare: Double = defaultMinShare, burnInUsers: Int = defaultBurnInUsers) {
        self.type = type
        self.reward = reward
        self.updateHours = updateHours
        self.minShare = minShare
        self.burnInUsers = burnInUsers
    }

    /// The metrics a reward may be: rates over exposed users where higher is better.
    public static let rewardBases = ["trial_start_rate", "paid_conversion"]

    /// Days after first exposure until a user's reward is known: the horizon N, or 1 for
    /// `trial_start_rate`.
    public var rewardDays: Int { reward.horizonDays ?? 1 }

    /// Whether `metric` may be a reward (see `rewardBases`); `paid_conversion` needs a horizon.
    public static func isReward(_ metric: Metric) -> Bool {
        guard rewardBases.contains(metric.definition.name) else { return false }
        return metric.definition.name == "trial_start_rate" || metric.horizonDays != nil
    }

    /// Period `index` (0 from `start`) begins here.
    public func periodStart(_ index: Int, start: Date) -> Date {
        start.addingTimeInterval(Double(index) * updateHours * 3600)
    }

    /// The period that `time` falls in (0 before and at `start`).
    public func periodIndex(at time: Date, start: Date) -> Int {
        let elapsed = time.timeIntervalSince(start)
        guard elapsed > 0 else { return 0 }
        return Int((elapsed / (updateHours * 3600)).rounded(.down))
    }

    /// The period a user counts in, times in microseconds since 1970: the
    /// `allocation_period` its first exposure echoed (the start of the period whose weights drew it;
    /// a millisecond's slack so a start stored to the microsecond falls in its own period), else the
    /// period of the first exposure's time.
    public func periodIndex(firstExposure: Int64, echoed: Int64?, start: Date) -> Int {
        let micros = echoed.map { $0 + 1000 } ?? firstExposure
        return periodIndex(at: Date(timeIntervalSince1970: Double(micros) / 1_000_000), start: start)
    }
}

extension Experiment {
    /// A bandit: its weights are learned (the file has `allocation`).
    public var isBandit: Bool { allocation != nil }
}
