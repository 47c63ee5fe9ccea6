import Foundation

/// One subject's follow-up: time from trial start, and whether the event (a cancel) was seen.
///
/// `event == false` means right-censored: still subscribed when last observed.
public struct SurvivalObservation: Sendable, Equatable, Hashable {
    public let time: Double
    public let event: Bool

    /// Throws unless `time` is finite and not negative.
    public init(time: Double, event: Bool) throws {
        guard time.isFinite, time >= 0 else {
            throw StatisticsError.invalidArgument(parameter: "time", reason: "must be finite and not negative, got \(time)")
        }
        self.time = time
        self.event = event
    }
}

/// The Kaplan–Meier survival curve with Greenwood variance (matches lifelines `KaplanMeierFitter`).
///
/// Intervals use the exponential Greenwood (log(−log)) transform, as lifelines does,
/// so they stay inside [0, 1]. While S(t) = 1 the interval is [1, 1]; once S(t) = 0 it is [0, 0].
/// Censored subjects count as at risk at their own censoring time.
public struct KaplanMeier: Sendable, Equatable {
    /// The curve at one distinct observed time.
    public struct Step: Sendable, Equatable, Codable {
        public let time: Double
        /// Subjects with time >= this time.
        public let atRisk: Int
        public let events: Int
        public let censored: Int
        /// S(time), including the drop at this time.
        public let survival: Double
        /// Greenwood's variance S² Σ d/(n(n − d)); steps where n = d (S falls to 0) add nothing, as in lifelines.
        public let variance: Double
        public let interval: Interval
    }

    public let steps: [Step]
    public let alpha: Double

    /// Fits the curve. Throws for an empty sample or a bad alpha.
    public init(_ observations: [SurvivalObservation], alpha: Double = 0.05) throws {
        guard !observations.isEmpty else { throw StatisticsError.insufficientData("Kaplan–Meier needs at least one observation") }
        try Check.alpha(alpha)
        self.alpha = alpha
        let z = Normal.upperQuantile(alpha / 2)
        let sorted = observations.sorted { $0.time < $1.time }
        var steps = [Step]()
        var atRisk = sorted.count
        var survival = 1.0
        var greenwoodSum = 0.0
        var index = 0
        while index < sorted.count {
            let time = sorted[index].time
            var events = 0, censored = 0
            while index < sorted.count && sorted[index].time == time {
                if sorted[index].event { events += 1 } else { censored += 1 }
                index += 1
            }
            if events > 0 {
                survival *= 1 - Double(events) / Double(atRisk)
                if atRisk > events { greenwoodSum += Double(events) / (Double(atRisk) * Double(atRisk - events)) }
            }
            steps.append(Step(time: time, atRisk: atRisk, events: events, censored: censored, survival: survival,
                              variance: survival * survival * greenwoodSum,
                              interval: Self.logLogInterval(survival: survival, greenwoodSum: greenwoodSum, z: z)))
            atRisk -= events + censored
        }
        self.steps = steps
    }

    /// lifelines' exponential Greenwood bounds: S^exp(∓ z·sqrt(Σ)/log S).
    static func logLogInterval(survival: Double, greenwoodSum: Double, z: Double) -> Interval {
        if survival >= 1 { return Interval(lower: 1, upper: 1) }
        if survival <= 0 { return Interval(lower: 0, upper: 0) }
        let logS = log(survival)
        let spread = z * greenwoodSum.squareRoot() / logS  // negative
        let lower = exp(-exp(log(-logS) - spread))
        let upper = exp(-exp(log(-logS) + spread))
        return Interval(lower: min(lower, upper), upper: max(lower, upper))
    }

    /// The last step at or before `time`, or nil before the first observed time.
    private func step(at time: Double) -> Step? {
        var low = 0, high = steps.count
        while low < high {
            let mid = (low + high) / 2
            if steps[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : steps[low - 1]
    }

    /// S(t): the probability of surviving past t (right-continuous; 1 before the first event).
    ///
    /// Beyond the last observed time the curve stays at its last value, as lifelines does.
    public func survival(at time: Double) -> Double { step(at: time)?.survival ?? 1 }

    /// The pointwise 1 − alpha interval for S(t).
    public func interval(at time: Double) -> Interval { step(at: time)?.interval ?? Interval(lower: 1, upper: 1) }

    /// S(t) at each of `times` (for the report's days 0, 1, 3, 7, 14, 30).
    public func survival(at times: [Double]) -> [Double] { times.map { survival(at: $0) } }
}
