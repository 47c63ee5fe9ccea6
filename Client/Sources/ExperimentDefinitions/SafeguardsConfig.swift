/// `safeguards`: which rate metrics are watched for harm, how sure to be, and what a harmful
/// arm sets off.
public struct SafeguardsConfig: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        /// Only the harmful arm's users get the control's paywall.
        case stopArm = "stop_arm"
        /// Every arm's users get the control's paywall.
        case stopExperiment = "stop_experiment"
    }

    public static let defaultAlpha = 0.05
    public static let defaultMinUsers = 300
    public static let defaultCheckMinutes = 15.0
    public static let defaultMinimumHarm = 0.2

    /// Rate metrics without a horizon (safeguards use fixed-horizon outcomes of their own).
    public var metrics: [Metric]
    public var action: Action
    /// The family-wise level, split over metrics × treatment arms.
    public var alpha: Double
    /// An arm is tested once it has this many exposed users.
    public var minUsers: Int
    /// How often a server evaluates.
    public var checkMinutes: Double
    /// The smallest harm worth stopping for, relative to the control's rate (0.2: a 20% worse rate);
    /// the one-sided test's mixing is tuned to it.
    public var minimumHarm: Double

    public init(metrics: [Metric], action: Action = .stopArm, alpha: Double = defaultAlpha,
                minUsers: Int = defaultMinUsers, checkMinutes: Double = defaultCheckMinutes, minimumHarm: Double = defaultMinimumHarm) {
        self.metrics = metrics
        self.action = action
        self.alpha = alpha
        self.minUsers = minUsers
        self.checkMinutes = checkMinutes
        self.minimumHarm = minimumHarm
    }
}
