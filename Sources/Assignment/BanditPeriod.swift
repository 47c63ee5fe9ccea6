import Foundation

/// One allocation period of a bandit as the `Assigner` applies it: from `from` until
/// the next period, new users are drawn with `weights` (in variant order).
public struct BanditPeriod: Sendable, Equatable {
    public var from: Date
    public var weights: [Double]

    public init(from: Date, weights: [Double]) {
        self.from = from
        self.weights = weights
    }
}

extension Assigner {
    /// The time assignment reads now (the injected clock): what `allocation_period` is taken at.
    public func currentTime() -> Date { clock() }

    /// The same assigner with each bandit's periods (by experiment id) in force.
    public func withPeriods(_ periods: [String: [BanditPeriod]]) -> Assigner {
        let experiments = experiments.map { e -> AssignableExperiment in
            guard e.isBandit else { return e }
            let wanted = periods[e.id] ?? []
            return wanted == e.periods ? e : e.withPeriods(wanted)
        }
        return Assigner(experiments: experiments, placements: placements, sticky: sticky, clock: clock)
    }
}
