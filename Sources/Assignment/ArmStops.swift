import Foundation

/// The safeguard stops in force on one experiment, as the `Assigner` applies them:
/// a user whose chosen arm is stopped gets the control's paywall, `reason: "safeguard"`.
public struct ArmStops: Sendable, Equatable {
    /// Indexed like the experiment's variants: true where the arm is stopped.
    public var stoppedArms: [Bool]
    /// The time of the first stop in force: the rollout stays at the stage it had then.
    public var holdStageAt: Date?

    public init(stoppedArms: [Bool], holdStageAt: Date?) {
        self.stoppedArms = stoppedArms
        self.holdStageAt = holdStageAt
    }

    /// Nothing stopped.
    public static let none = ArmStops(stoppedArms: [], holdStageAt: nil)

    public var isEmpty: Bool { !stoppedArms.contains(true) }

    @inline(__always)
    func isStopped(_ arm: Int) -> Bool { arm < stoppedArms.count && stoppedArms[arm] }
}
