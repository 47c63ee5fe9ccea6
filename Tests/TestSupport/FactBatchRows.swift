import Events
import ExperimentDefinitions

extension FactBatch {
    /// The batch's rows as `UserFacts` of `experiment`, read through `FactRow` (placement and attributes
    /// empty: a batch carries none), to compare with a walk of rows.
    public func facts(experiment: String) -> [UserFacts] {
        withRows { rows in
            (0..<rows.count).map { i in
                let row = rows[i]
                func at(_ t: Int64?) -> Timestamp? { t.map(Timestamp.init(microseconds:)) }
                return UserFacts(
                    experiment: experiment, userID: row.userID, variant: variants[rows.variant(i)],
                    firstExposure: Timestamp(microseconds: row.firstExposureMicros), trialStart: at(row.trialStartMicros),
                    firstPaid: at(row.firstPaidMicros), firstConverted: at(row.firstConvertedMicros), firstCancel: at(row.standingCancel),
                    refundedAt: at(row.refundedMicros), netRevenue: row.netRevenue, revenueEntries: Array(row.revenueEntries),
                    crossedOver: row.crossedOver, copySource: row.copySource, copyFallbackReason: row.copyFallbackReason,
                    grantedTrialDays: row.grantedTrialDays, allocationPeriod: at(row.allocationPeriodMicros), expiredAt: at(row.expiredMicros),
                    expiryKind: row.expiryKind, billingIssueAt: at(row.billingIssueMicros), firstUncancel: at(row.firstUncancelMicros),
                    strayUncancel: at(row.strayUncancelMicros), undoneCancels: row.undoneCancels, laterEnds: row.laterEnds)
            }
        }
    }
}

extension UserFacts {
    /// The row as a `FactBatch` keeps it: no placement or attributes, a copy fallback reason only when not empty.
    public var withoutBatchlessParts: UserFacts {
        var f = self
        (f.placement, f.attributes) = (nil, .empty)
        if f.copyFallbackReason == "" { f.copyFallbackReason = nil }
        return f
    }
}
