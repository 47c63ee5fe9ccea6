import Foundation

/// The mixing variance τ² of one safeguard's test (experiment, arm, metric), fixed at the first
/// look that tested the arm from `minimum_harm` and the control's rate then, and kept so that every
/// later look and every node tests with the same one: a scale that followed the control's rate
/// from look to look would be a different test at each look, and Ville's bound holds for one.
public struct SafeguardScale: Sendable, Equatable {
    public var experiment: String
    /// The treatment arm tested against the control.
    public var arm: String
    public var metric: String
    /// τ², on the scale of the rate difference.
    public var mixingVariance: Double
    /// The control's rate it came from.
    public var controlRate: Double
    /// The look that fixed it.
    public var fixedAt: Timestamp

    public init(experiment: String, arm: String, metric: String, mixingVariance: Double, controlRate: Double, fixedAt: Timestamp) {
        self.experiment = experiment
        self.arm = arm
        self.metric = metric
        self.mixingVariance = mixingVariance
        self.controlRate = controlRate
        self.fixedAt = fixedAt
    }
}
