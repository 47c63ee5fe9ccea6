import ExperimentDefinitions
import Foundation

/// How the verdict reads one comparison, decided once by the analysis and stored on it, so the
/// decision, the health checks and every renderer (a ▲/▼ mark, a colour) agree without re-deciding.
public struct VerdictReading: Sendable, Equatable {
    /// Which way the variant moved the metric, in the metric's good direction.
    public enum Outcome: String, Sendable, Equatable {
        case better, worse, even
    }

    /// The verdict reads the always-valid (mSPRT) p-value: rates without a horizon, in sequential experiments.
    public var readsSequential: Bool
    /// The p-value the verdict reads: always-valid when `readsSequential`, else Holm-adjusted.
    public var pValue: Double?
    /// The always-valid interval excludes today's difference: the effect was not constant over time (a
    /// longer trial delays conversions, a novelty effect fades), which the mSPRT assumes, so its verdict is not used.
    public var sequentialConflict: Bool
    /// Significant at the report's alpha (see `read`).
    public var decisive: Bool
    public var outcome: Outcome

    public init(readsSequential: Bool = false, pValue: Double? = nil, sequentialConflict: Bool = false, decisive: Bool = false, outcome: Outcome = .even) {
        self.readsSequential = readsSequential
        self.pValue = pValue
        self.sequentialConflict = sequentialConflict
        self.decisive = decisive
        self.outcome = outcome
    }

    /// Decisive when the p-value the verdict reads is below alpha; for rates of sequential experiments the
    /// always-valid one, counted only when its interval contains today's difference and not zero.
    public static func read(_ c: ComparisonResult, alpha: Double, sequential: Bool) -> VerdictReading {
        let readsSequential = sequential && !c.metric.isRevenue && c.metric.horizonDays == nil
        let conflict = c.sequentialCI.flatMap { ci in c.absoluteDiff.map { !ci.contains($0) } } ?? false
        let decisive: Bool
        if readsSequential {
            if let p = c.sequentialPValue, p < alpha, let ci = c.sequentialCI, let d = c.absoluteDiff {
                decisive = ci.contains(d) && !ci.contains(0)
            } else {
                decisive = false
            }
        } else {
            decisive = (c.pValueAdjusted ?? 1) < alpha
        }
        let outcome: Outcome
        if let d = c.absoluteDiff, d != 0 {
            outcome = (c.metric.lowerIsBetter ? d < 0 : d > 0) ? .better : .worse
        } else {
            outcome = .even
        }
        return VerdictReading(readsSequential: readsSequential, pValue: readsSequential ? c.sequentialPValue : c.pValueAdjusted,
                              sequentialConflict: conflict, decisive: decisive, outcome: outcome)
    }

    /// Clearly better: decisive, in the metric's good direction.
    public var clearlyBetter: Bool { decisive && outcome == .better }
    /// Clearly worse: decisive, against the metric's good direction.
    public var clearlyWorse: Bool { decisive && outcome == .worse }
}

extension VerdictReading {
    /// The comparisons, each with its `reading` at the report's alpha and sequential setting.
    static func read(_ comparisons: [ComparisonResult], alpha: Double, sequential: Bool) -> [ComparisonResult] {
        comparisons.map { c in
            var read = c
            read.reading = VerdictReading.read(c, alpha: alpha, sequential: sequential)
            return read
        }
    }
}

extension Metric {
    /// What a rate metric counts, in words for a reason ("no payers yet"): its numerator.
    var countWords: String {
        guard case .proportion(let fact) = definition.statistic else { return "payers" }
        return switch fact {
        case .exposure: "exposures"
        case .trialStart: "trial starts"
        case .paid, .converted: "payers"
        case .day0Cancel: "day-0 cancels"
        case .trialCancel: "trial cancels"
        case .refund: "refunds"
        case .chargeDue: "charges due"
        case .billingIssue: "billing issues"
        }
    }

    /// `higher_is_better` or `lower_is_better`, as every format writes it.
    public var direction: String { lowerIsBetter ? "lower_is_better" : "higher_is_better" }
}
