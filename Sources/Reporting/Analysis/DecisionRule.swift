import ExperimentDefinitions
import Foundation

/// The verdict of a report, and its reasons in words for a product manager.
///
/// "Clearly" below means: the Holm-adjusted p-value is below alpha (for sequential experiments,
/// the always-valid mSPRT p-value of rate metrics instead, which stays valid however often one looks,
/// counted only when its interval contains today's difference and not zero: an interval that excludes
/// today's difference means the effect changed over time, and a health check says so).
/// Guardrails are `day0_cancel_rate`, always, then the experiment's `guardrails`.
///
/// A treatment **wins** when its primary metric is clearly better than the control's and no
/// guardrail is clearly worse. A treatment **hurts** when its primary metric or a guardrail is
/// clearly worse. The rules, in order:
///
/// Harm first: whatever the verdict, its reasons begin with every comparison of a guardrail or a
/// safeguard metric that is clearly worse (in the form the verdict reads), and no arm is shipped while one is.
///
/// 1. No users in the control or in every treatment: `keep_running`.
/// 2. Sample ratio mismatch (p < 0.001): `inconclusive` — the split itself is broken, so no
///    number can be trusted; fix assignment or logging and restart.
/// 3. Some treatment wins: `ship` the winner with the largest lift on the primary metric —
///    except in a fixed-horizon (non-sequential) experiment whose smallest arm has not yet reached
///    the users the power calculation asks for: then `keep_running`, because a win seen before the
///    planned sample size is reached overstates the effect more often than alpha suggests.
/// 4. Every treatment hurts: `stop` — keep the control.
/// 5. Every arm has the users needed for `minimum_effect`: `inconclusive` — no difference as large
///    as the one the test was sized for; keep the control or decide on other grounds.
/// 6. Otherwise: `keep_running`, with how many more users are needed.
public enum DecisionRule {
    public static func decide(_ r: ReportFigures, required: SampleRequirement) -> Decision {
        var decision = verdict(r, required: required)
        decision.reasons = harms(r).map { $0.words } + decision.reasons + otherSide(r, winner: decision.winner)
        return decision
    }

    /// The metrics whose harm comes first, as the verdict reads them: the guardrails, then the safeguards' metrics.
    static func harmMetrics(_ r: ReportFigures) -> [Metric] {
        var out = guardrails(r)
        for m in r.safeguardMetrics.map(r.verdictForm) where m != r.verdictPrimary && !out.contains(m) { out.append(m) }
        return out
    }

    /// Every comparison of a guardrail or safeguard metric that is clearly worse, in words that quote its figures.
    static func harms(_ r: ReportFigures) -> [(variant: String, words: String)] {
        guard r.variants.count >= 2 else { return [] }
        var out: [(variant: String, words: String)] = []
        for key in r.variants.dropFirst().map(\.key) {
            for m in harmMetrics(r) {
                guard let c = r.comparison(key, m), c.reading.clearlyWorse else { continue }
                out.append((key, "“\(key)” made \(Wording.title(m).lowercased()) worse: \(Wording.change(c, r)), \(pWords(c, r))."))
            }
        }
        return out
    }

    /// Where revenue per user and paid conversion disagree with the metric the verdict reads: a treatment
    /// clearly better on the other one (or a winner clearly worse on it), in words, so a verdict on
    /// conversion never hides that another arm earns more per user (or the reverse).
    static func otherSide(_ r: ReportFigures, winner: String?) -> [String] {
        guard !r.srm.flagged, r.variants.count >= 2 else { return [] }
        let other = r.verdictForm(r.primaryMetric.isRevenue ? .paidConversion : .revenuePerUser)
        var out: [String] = []
        for key in r.variants.dropFirst().map(\.key) {
            guard let c = r.comparison(key, other), c.reading.decisive else { continue }
            let (from, to) = rates(c, r)
            let name = Wording.title(other).lowercased()
            if c.reading.outcome == .better && key != winner {
                out.append("But “\(key)” is clearly better than “\(r.control.key)” on \(name) (\(from) → \(to), \(liftWords(c, r)); \(pWords(c, r))), which the verdict's metric does not show: weigh it before deciding.")
            } else if c.reading.outcome == .worse && key == winner {
                out.append("But “\(key)” is clearly worse than “\(r.control.key)” on \(name) (\(from) → \(to), \(liftWords(c, r)); \(pWords(c, r))): shipping it trades that away.")
            }
        }
        return out
    }

    static func verdict(_ r: ReportFigures, required: SampleRequirement) -> Decision {
        var decision = judge(r, required: required)
        if let note = maturityNote(r) { decision.reasons.append(note) }
        return decision
    }

    /// "The verdict reads paid conversion in users' first 10 days (…)", when it reads a mature form.
    static func maturityNote(_ r: ReportFigures) -> String? {
        let read = ([r.primaryMetric] + guardrailsAsNamed(r)).filter { r.verdictForm($0) != $0 }
        guard !read.isEmpty else { return nil }
        let names = read.map { Wording.title($0).lowercased() }.joined(separator: ", ")
        return "The verdict reads \(names) in users' first \(r.maturityDays) days (\(maturityWords(r))), so arms with different trials are compared at the same age."
    }

    /// "the longest trial, 7 days, plus 3 days' grace"; "no arm offers a trial of its own, 10 days' grace"
    /// (a global holdout's arms show no paywall, so its file's grace carries the held-out trials).
    static func maturityWords(_ r: ReportFigures) -> String {
        let grace = r.maturityDays - r.longestTrialDays
        if r.longestTrialDays == 0 { return "no arm offers a trial of its own, \(grace) day\(grace == 1 ? "" : "s")' grace" }
        return "the longest trial, \(r.longestTrialDays) day\(r.longestTrialDays == 1 ? "" : "s"), plus \(grace) day\(grace == 1 ? "" : "s")' grace"
    }

    static func judge(_ r: ReportFigures, required: SampleRequirement) -> Decision {
        let q = { (s: String) in "“\(s)”" }
        let primary = r.verdictPrimary
        let treatments = r.variants.dropFirst().map(\.key)
        let control = r.control

        if r.variants.count < 2 || control.users == 0 || r.variants.dropFirst().allSatisfy({ $0.users == 0 }) {
            return Decision(verdict: .keepRunning, reasons: ["There is not enough data yet: the control or every new variant has no users. Let the experiment run."])
        }
        if r.srm.flagged {
            return Decision(verdict: .inconclusive, reasons: [
                "Users did not split between the variants as planned (sample ratio mismatch, \(Wording.pEquals(r.srm.pValue))). That usually means a bug in assignment or event logging, and it can fake or hide any effect.",
                "Do not act on these numbers: find the cause, fix it, and restart the experiment.",
            ])
        }
        // Harm on a guardrail is read in its mature form, so it counts even while the primary is still moving.
        let harmed = Set(harms(r).map { $0.variant })
        var fell: [String: String] = [:]
        var winners: [ComparisonResult] = []
        let young = r.smallestMatureShare.flatMap { $0.share < 0.5 ? $0 : nil }
        if young == nil {
            for key in treatments {
                guard let c = r.comparison(key, primary) else { continue }
                if c.reading.clearlyWorse { fell[key] = "\(Wording.title(primary).lowercased()) fell \(change(c, r))" }
                if c.reading.clearlyBetter && !harmed.contains(key) { winners.append(c) }
            }
        }
        let hurt = { (key: String) in harmed.contains(key) || fell[key] != nil }
        let turnOff = treatments.filter(hurt).map { key in
            fell[key].map { "\(q(key)) hurts: \($0). Consider turning it off." } ?? "\(q(key)) hurts a guardrail (above). Consider turning it off."
        }

        // Maturity: the verdict never judges on figures still moving; a harm already seen (above) is still
        // said first, with turning the arm off as the step to take meanwhile.
        if let young {
            let shares = zip(r.variants.map(\.key), r.matureShares).compactMap { k, s in s.map { "\(q(k)) \(Wording.share($0))" } }
            let who = young.share == 0 ? "none of \(q(young.key))'s users were"
                : young.share < 0.01 ? "fewer than 1% of \(q(young.key))'s users were" : "only \(Wording.share(young.share)) of \(q(young.key))'s users were"
            return Decision(verdict: .keepRunning, reasons: [
                "Too early: \(who) first exposed at least \(r.maturityDays) days ago (\(maturityWords(r))), so conversion and revenue are still moving; the verdict waits until half of every arm's users are that old.",
                "Users that old, per arm: \(shares.joined(separator: ", ")).",
            ] + turnOff)
        }

        if !treatments.isEmpty && treatments.allSatisfy(hurt) {
            var reasons = treatments.compactMap { key in fell[key].map { "\(q(key)) did worse than \(q(control.key)): \($0)." } }
            reasons.append("Keep \(q(control.key)) and stop the experiment.")
            return Decision(verdict: .stop, reasons: reasons)
        }

        let best = winners.max { ($0.relativeLift ?? $0.absoluteDiff ?? 0) < ($1.relativeLift ?? $1.absoluteDiff ?? 0) }
        if let best {
            let early = !r.sequential && required.perVariant != nil && !required.reached
            var reasons = [winReason(best, r)]
            if best.metric.isRevenue, let p = best.chanceToWin {
                reasons.append(bayesWords(best, p, r))
            } else if let p = best.chanceToBeBetter {
                reasons.append("Chance that \(q(best.variant)) really is better: \(Wording.probability(p)).")
            }
            reasons.append(guardSummary(best.variant, r))
            for key in treatments where hurt(key) {
                reasons.append(fell[key].map { "Do not ship \(q(key)): \($0)." } ?? "Do not ship \(q(key)): it hurts a guardrail (above).")
            }
            if early {
                let next = required.unreachable.map { "; \($0), so waiting will not get there: send it more users, or decide knowing that an early lead overstates the effect" }
                    ?? ". Calling a winner early on a fixed-size test overstates wins; keep it running until then"
                reasons.insert("\(q(best.variant)) is ahead, but the test has not reached its planned size (\(sizeWords(required, r)))\(next).", at: 0)
                return Decision(verdict: .keepRunning, reasons: reasons)
            }
            return Decision(verdict: .ship, winner: best.variant, reasons: reasons)
        }

        var reasons: [String] = []
        for key in treatments {
            if hurt(key) { continue }
            if let c = r.comparison(key, primary) { reasons.append(noWinnerYet(c, r)) }
        }
        reasons += turnOff
        if required.reached {
            reasons.insert("Each variant has the \(Wording.count(required.perVariant ?? 0)) \(unit(r)) needed to spot a \(Wording.percent(r.minimumEffect, digits: 0)) change in \(Wording.title(primary).lowercased()), and no new paywall clearly beats \(q(control.key)).", at: 0)
            reasons.append("Any real difference is smaller than the one this test was sized for. Keep \(q(control.key)), or choose on other grounds (cost, brand, simplicity).")
            return Decision(verdict: .inconclusive, reasons: reasons)
        }
        if let unreachable = required.unreachable, required.perVariant != nil {
            reasons.append("No clear difference yet, and \(sizeWords(required, r)); \(unreachable), so waiting will not get there: send it more users, or keep \(q(control.key)).")
        } else if required.perVariant != nil {
            reasons.append("Keep it running: \(sizeWords(required, r)).")
        } else if let why = required.reasonUnknown {
            reasons.append("Keep it running: there is no clear difference yet, and the users needed cannot be estimated because \(why).")
        }
        return Decision(verdict: .keepRunning, reasons: reasons)
    }

    /// Guardrail metrics as the verdict reads them (mature forms): Day-0 cancels always, first;
    /// then the experiment's own, without the primary metric.
    public static func guardrails(_ r: ReportFigures) -> [Metric] {
        var out: [Metric] = []
        for m in guardrailsAsNamed(r).map(r.verdictForm) where !out.contains(m) { out.append(m) }
        return out
    }

    /// The guardrails as the file names them: Day-0 cancels first, then the experiment's own, without the primary.
    static func guardrailsAsNamed(_ r: ReportFigures) -> [Metric] {
        var out: [Metric] = []
        for m in [Metric.day0CancelRate] + r.guardrails where m != r.primaryMetric && !out.contains(m) { out.append(m) }
        return out
    }

    /// "p = 0.0123", or "always-valid p = …" for sequential experiments.
    static func pWords(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        let seq = c.reading.readsSequential
        let label = seq ? "always-valid p" : (r.variants.count > 2 ? "Holm-adjusted p" : "p")
        let p = Wording.pValue(c.reading.pValue)
        var words = p.hasPrefix("<") ? "\(label) \(p.prefix(1)) \(p.dropFirst())" : "\(label) = \(p)"
        if seq && c.reading.sequentialConflict {
            words += ", set aside: its interval contradicts today's difference"
        }
        return words
    }

    static func unit(_ r: ReportFigures) -> String { r.verdictPrimary.unit.words }

    static func sizeWords(_ req: SampleRequirement, _ r: ReportFigures) -> String {
        "each variant needs about \(Wording.count(req.perVariant ?? 0)) \(unit(r)) to spot a \(Wording.percent(r.minimumEffect, digits: 0)) change, the smallest has \(Wording.count(req.smallestArm)), about \(Wording.count(req.missingPerVariant)) more per variant"
    }

    static func rates(_ c: ComparisonResult, _ r: ReportFigures) -> (String, String) {
        let v = r.variants.first { $0.key == c.variant }?.metric(c.metric)?.rate
        return (Wording.value(c.metric, r.control.metric(c.metric)?.rate, in: r.currency), Wording.value(c.metric, v, in: r.currency))
    }

    static func change(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        let (from, to) = rates(c, r)
        // The p-value of a stratified or adjusted estimate beside pooled rates says whose it is.
        if let name = c.estimateName { return "(\(from) → \(to) pooled; \(name) \(pWords(c, r)))" }
        return "(\(from) → \(to), \(pWords(c, r)))"
    }

    static func liftWords(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        // A stratified or adjusted estimate beside pooled rates is named as such.
        let name = c.estimateName.map { "the \($0) change " } ?? ""
        if let lift = c.relativeLift {
            var s = name + Wording.signedPercent(lift)
            if let ci = c.relativeCI { s += "; the true change is likely between \(Wording.signedPercent(ci.lower)) and \(Wording.signedPercent(ci.upper))" }
            return s
        }
        return (c.estimateName.map { "the \($0) difference " } ?? "") + Wording.difference(c.metric, c.absoluteDiff, in: r.currency)
    }

    static func winReason(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        let (from, to) = rates(c, r)
        let within = c.metric.horizonDays.map { " in users' first \($0) day\($0 == 1 ? "" : "s")" } ?? ""
        return "“\(c.variant)” \(c.metric.definition.winWords)\(within): \(to) against \(from) for “\(r.control.key)” (\(liftWords(c, r)))\(capWords(c, r))."
    }

    static func noWinnerYet(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        let (from, to) = rates(c, r)
        var words = "“\(c.variant)” is not clearly different from “\(r.control.key)” on \(Wording.title(c.metric).lowercased()): \(to) against \(from) (\(liftWords(c, r)); \(pWords(c, r)))\(capWords(c, r))."
        if c.metric.isRevenue, let chance = c.chanceToWin {
            words += " \(bayesWords(c, chance, r))"
        }
        return words
    }

    /// For revenue: the chance the variant earns more and what shipping it would cost if it does not.
    static func bayesWords(_ c: ComparisonResult, _ chance: Double, _ r: ReportFigures) -> String {
        "Chance that “\(c.variant)” earns more per user: \(Wording.probability(chance)); if it does not, shipping it loses about \(Wording.loss(c.metric, c.expectedLoss, in: r.currency)) on average."
    }

    static func capWords(_ c: ComparisonResult, _ r: ReportFigures) -> String {
        guard let cap = c.cap else { return "" }
        return ", with each user's revenue capped at \(Wording.money(cap, in: r.currency))"
    }

    static func guardSummary(_ key: String, _ r: ReportFigures) -> String {
        let parts = guardrails(r).compactMap { g -> String? in
            guard let c = r.comparison(key, g) else { return nil }
            let (from, to) = rates(c, r)
            return "\(Wording.title(g).lowercased()) \(from) → \(to)"
        }
        return parts.isEmpty ? "No guardrail metric to check." : "No guardrail clearly got worse: \(parts.joined(separator: ", "))."
    }
}
