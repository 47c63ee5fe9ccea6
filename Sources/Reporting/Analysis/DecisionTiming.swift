import ExperimentDefinitions
import Foundation

/// `decision.eta`: the date by which, at the last 7 days' arrival rate, every arm holds the
/// mature users the power calculation asks for; or why it cannot be estimated.
enum DecisionTiming {
    static let day: TimeInterval = 86_400
    /// Beyond this many days ahead the estimate is not worth giving.
    static let horizonDays = 3650

    /// `required` is in the verdict primary's denominator units (users, trial starters, payers); it is
    /// turned into exposed users by the control's share of mature users in that denominator.
    /// The date, or nil with the reason; `unreachable` when the reason is that arrivals will not bring the users needed.
    static func eta(_ tallies: [VariantTally], _ ctx: ReportAnalyzer.Context, primary: Metric, required: SampleRequirement,
                    maturityDays: Int, asOf: Date) -> (date: Date?, reason: String?, unreachable: Bool) {
        let (date, reason) = estimate(tallies, ctx, primary: primary, required: required, maturityDays: maturityDays, asOf: asOf)
        return (date, reason, date == nil && reason?.hasPrefix(Self.arrivalWords) == true)
    }

    /// How every reason that arrivals fall short begins.
    static let arrivalWords = "at the last 7 days' arrival rate "

    static func estimate(_ tallies: [VariantTally], _ ctx: ReportAnalyzer.Context, primary: Metric, required: SampleRequirement,
                         maturityDays: Int, asOf: Date) -> (Date?, String?) {
        guard let perVariant = required.perVariant else {
            return (nil, "the users needed cannot be estimated: \(required.reasonUnknown ?? "no power calculation")")
        }
        guard tallies.count >= 2, let slot = ctx.metrics.firstIndex(of: primary) else { return (nil, "there is only one variant") }
        // Exposed users per user of the primary's denominator, among the control's mature users.
        let control = tallies[0]
        let mature = control.users(olderThan: maturityDays)
        let denominator = control.denominators[slot]
        guard mature > 0, denominator > 0 else {
            return (nil, "no user of “\(control.key)” is \(maturityDays) days old yet, so the share of \(primary.unit.words) among users is unknown")
        }
        let neededUsers = Int((Double(perVariant) * Double(mature) / Double(denominator)).rounded(.up))
        var latest = asOf.addingTimeInterval(-Double(VariantTally.maxAgeDays) * day)
        for t in tallies {
            guard let date = date(Ages(t), needed: neededUsers, maturityDays: maturityDays, asOf: asOf) else {
                let arrivals = t.users(olderThan: 0) - t.users(olderThan: 7)
                return (nil, arrivals == 0
                    ? "\(arrivalWords)“\(t.key)” will not reach the \(Wording.count(neededUsers)) users it needs: no user arrived in it in the last 7 days"
                    : "\(arrivalWords)“\(t.key)” needs more than ten years to reach \(Wording.count(neededUsers)) users \(maturityDays) days old")
            }
            latest = max(latest, date)
        }
        return (latest, nil)
    }

    /// When `t` holds `needed` users at least `maturityDays` old: in the past (the day it happened, from
    /// the ages of its users) or ahead (its users ageing, plus arrivals at the last 7 days' rate).
    static func date(_ t: Ages, needed: Int, maturityDays: Int, asOf: Date) -> Date? {
        // Already met: the largest k with users at least maturityDays + k days old >= needed.
        if t.users(olderThan: maturityDays) >= needed {
            var k = 0
            while maturityDays + k + 1 <= VariantTally.maxAgeDays && t.users(olderThan: maturityDays + k + 1) >= needed { k += 1 }
            return asOf.addingTimeInterval(-Double(k) * day)
        }
        let rate = Double(t.users(olderThan: 0) - t.users(olderThan: 7)) / 7
        for ahead in 1...horizonDays {
            let ageing = t.users(olderThan: maturityDays - ahead)
            let arrived = rate * Double(max(0, ahead - maturityDays))
            if Double(ageing) + arrived >= Double(needed) { return asOf.addingTimeInterval(Double(ahead) * day) }
        }
        return nil
    }

    /// An arm's users older than each age, summed once: `date` asks about up to `horizonDays` ages,
    /// and `VariantTally.users(olderThan:)` sums its ages each time.
    struct Ages {
        private let olderThan: [Int]

        init(_ t: VariantTally) {
            var sums = t.usersByAge
            for d in stride(from: sums.count - 2, through: 0, by: -1) { sums[d] += sums[d + 1] }
            olderThan = sums
        }

        func users(olderThan days: Int) -> Int { olderThan[min(max(days, 0), VariantTally.maxAgeDays)] }
    }
}
