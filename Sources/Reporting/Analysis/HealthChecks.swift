import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// The checks at the top of a report, in plain words, most serious first.
///
/// Sample ratio mismatch; too few users for `minimum_effect` (with how many more are needed);
/// guardrails that got worse, Day-0 cancels first; users first exposed outside the experiment's
/// dates; forced QA users and unknown variants left out.
public enum HealthChecks {
    /// `verdict`: what the decision says, so a check never advises against it (no "too few users" beside a
    /// ship or a stop that did not need them; nil when checks are made alone).
    public static func make(_ r: ReportFigures, accumulator acc: ReportAccumulator, required: SampleRequirement,
                            verdict: Decision.Verdict? = nil) -> [HealthCheck] {
        var out: [HealthCheck] = []
        let q = { (s: String) in "“\(s)”" }

        // Safeguard stops in force at the as-of time: the arm's users get the control's paywall.
        for stop in r.safeguards where stop.inForce {
            let f = stop.figures
            let what = stop.action == .stopExperiment ? "The experiment (every arm) was stopped" : "Arm \(q(stop.arm)) was stopped"
            out.append(HealthCheck(level: .alert, code: "safeguard", message:
                "\(what) by a safeguard at \(RFC3339.format(stop.stoppedAt.date)): \(stop.metric) "
                + "\(String(format: "%.1f%%", f.comparedArmRate * 100)) against \(String(format: "%.1f%%", f.comparedControlRate * 100)) in the control"
                + (f.stratified != nil ? " (period-stratified), " : ", ")
                + "wholly on the harmful side of its always-valid interval; its users get the control's paywall until 'abctl safeguards reset'."))
        }

        if r.users == 0 {
            out.append(HealthCheck(level: .warning, code: "no_users", message: "No users have been counted yet, so there is nothing to compare."))
        }

        // Sample ratio mismatch.
        if let p = r.srm.pValue {
            let counts = r.srm.counts.isEmpty ? r.variants.map(\.users) : r.srm.counts
            let counted = counts.reduce(0, +)
            let shares = counts.map { counted > 0 ? Double($0) / Double(counted) : 0 }
            var detail = zip(r.variants, zip(shares, r.srm.expectedShares)).map { v, s in "\(q(v.key)) \(Wording.percent(s.0, digits: 1)) (planned \(Wording.percent(s.1, digits: 1)))" }.joined(separator: ", ")
            if let before = r.srm.countedBefore { detail += ", users first exposed before the first safeguard stop (\(Wording.date(before)))" }
            if r.srm.flagged {
                out.append(HealthCheck(level: .alert, code: "srm", message: "Users did not split as planned: \(detail); \(Wording.pEquals(p)). This usually means a bug in assignment or in event logging, so no result below can be trusted until it is found."))
            } else {
                out.append(HealthCheck(level: .ok, code: "srm", message: "Users split as planned (\(detail); \(Wording.pEquals(p)))."))
            }
        }

        // Maturity: to-date figures that still include users whose conversion is moving.
        let settling = ([r.primaryMetric] + DecisionRule.guardrailsAsNamed(r)).filter { r.verdictForm($0) != $0 }
        if !settling.isEmpty, r.users > 0, r.matureShares.contains(where: { ($0 ?? 1) < 1 }) {
            let names = settling.map { Wording.title($0).lowercased() }.joined(separator: ", ")
            let shares = zip(r.variants.map(\.key), r.matureShares).compactMap { k, s in s.map { "\(q(k)) \(Wording.share($0))" } }
            out.append(HealthCheck(level: .warning, code: "immature", message: "To-date \(names) include users first exposed less than \(r.maturityDays) days ago (\(DecisionRule.maturityWords(r))), whose figures are still moving. Share of users old enough, per arm: \(shares.joined(separator: ", ")). The verdict reads the first-\(r.maturityDays)-day forms."))
        }

        // Enough users for the minimum effect?
        let metricName = Wording.title(r.verdictPrimary).lowercased()
        let unit = r.verdictPrimary.unit.words
        let effect = Wording.percent(r.minimumEffect, digits: 0)
        if let need = required.perVariant {
            if required.reached {
                out.append(HealthCheck(level: .ok, code: "sample_size", message: "Enough \(unit) to spot a \(effect) change in \(metricName): each variant needs \(Wording.count(need)) and the smallest has \(Wording.count(required.smallestArm))."))
            } else if let verdict, verdict == .ship || verdict == .stop {
                // The verdict decided before the planned size; say why it did not need it, not that more are needed.
                let why = verdict == .stop ? "a clear harm needs no more users to be seen"
                    : r.allocation != nil ? "a bandit names its best arm once it is likely best and clearly above the control"
                    : "its always-valid p-values hold at any size"
                out.append(HealthCheck(level: .info, code: "sample_size", message: "The test was sized for \(Wording.count(need)) \(unit) per variant to spot a \(effect) change in \(metricName), and the smallest has \(Wording.count(required.smallestArm)); the verdict did not wait for that size: \(why)."))
            } else {
                let more = required.missingPerVariant
                out.append(HealthCheck(level: .warning, code: "sample_size", message: "Too few \(unit) to spot a \(effect) change in \(metricName): each variant needs about \(Wording.count(need)), the smallest has \(Wording.count(required.smallestArm)), so about \(Wording.count(more)) more per variant (\(Wording.count(more * r.variants.count)) in total)."))
            }
        } else if let why = required.reasonUnknown, r.users > 0 {
            out.append(HealthCheck(level: .info, code: "sample_size", message: "The number of \(unit) needed to spot a \(effect) change cannot be worked out yet: \(why)."))
        }

        // Guardrails, Day-0 cancels first.
        var guardrailNews: [HealthCheck] = []
        for metric in DecisionRule.guardrails(r) {
            for c in r.comparisons where c.metric == metric {
                guard c.reading.outcome == .worse, r.control.metric(metric)?.rate != nil,
                      r.variants.first(where: { $0.key == c.variant })?.metric(metric)?.rate != nil else { continue }
                let change = Wording.change(c, r)
                if c.reading.decisive {
                    guardrailNews.append(HealthCheck(level: .alert, code: "guardrail", message: "\(q(c.variant)) made \(Wording.title(metric).lowercased()) worse: \(change), \(DecisionRule.pWords(c, r)). \(metric == .day0CancelRate ? "People who cancel on day 0 never pay; this cost is real even if more start a trial." : "")".trimmingCharacters(in: .whitespaces)))
                } else {
                    guardrailNews.append(HealthCheck(level: .info, code: "guardrail", message: "\(q(c.variant)) has slightly worse \(Wording.title(metric).lowercased()), \(change), but not clearly beyond chance (\(DecisionRule.pWords(c, r)))."))
                }
            }
        }
        if guardrailNews.isEmpty && r.variants.count >= 2 && r.users > 0 {
            let names = DecisionRule.guardrails(r).map { Wording.title($0).lowercased() }.joined(separator: ", ")
            out.append(HealthCheck(level: .ok, code: "guardrail", message: "No guardrail got worse (\(names))."))
        }
        out += guardrailNews

        // Sequential results that contradict today's numbers.
        if r.sequential {
            let conflicts = r.comparisons.filter { $0.reading.sequentialConflict && ($0.metric == r.primaryMetric || DecisionRule.guardrails(r).contains($0.metric)) }
            for c in conflicts {
                out.append(HealthCheck(level: .warning, code: "sequential", message: "The always-valid interval for \(q(c.variant)) on \(Wording.title(c.metric).lowercased()) (\(Wording.differenceInterval(c.metric, c.sequentialCI, in: r.currency))) no longer contains today's difference (\(Wording.difference(c.metric, c.absoluteDiff, in: r.currency))). The effect changed over time (a longer trial delays conversions, or a novelty effect faded), which sequential testing assumes it does not, so that result does not count toward the verdict."))
            }
        }

        // Crossover: users who saw more than one variant stay in their first, which dilutes any difference.
        if r.crossoverUsers > 0 {
            let share = r.users > 0 ? Double(r.crossoverUsers) / Double(r.users) : 0
            if share > 0.01 {
                out.append(HealthCheck(level: .warning, code: "crossover", message: "\(users(r.crossoverUsers)) (\(Wording.percent(share, digits: 1)) of the experiment's users) exposed to more than one variant. Each is counted in the first variant seen, which blurs the difference between variants; check that the app keeps a user's variant (sticky assignment) across devices and reinstalls.", count: r.crossoverUsers))
            } else {
                out.append(HealthCheck(level: .info, code: "crossover", message: "\(users(r.crossoverUsers)) exposed to more than one variant (\(Wording.percent(share, digits: 1)), at most 1% is expected); each is counted in the first variant seen.", count: r.crossoverUsers))
            }
        }

        // Uncancels that followed no cancel are stored and change nothing; many of them mean a store's
        // words are being mapped wrongly, or the cancels are not reaching the store.
        for t in acc.tallies where t.uncancelled > 0 && Double(t.strayUncancelled) > 0.01 * Double(t.uncancelled) {
            let share = Double(t.strayUncancelled) / Double(t.uncancelled)
            out.append(HealthCheck(level: .warning, code: "stray_uncancels", message: "\(q(t.key)): \(Wording.count(t.strayUncancelled)) of the \(Wording.count(t.uncancelled)) users with an uncancel (\(Wording.percent(share, digits: 1))) had no cancel before it; such an uncancel changes nothing. Check that every cancel reaches the store.", count: t.strayUncancelled))
        }

        // Offers the stores gave against what each arm tested.
        out += OfferChecks.health(r)

        // Dates.
        let exp = acc.experiment
        if acc.exposedBeforeStart > 0, let start = exp.start {
            out.append(HealthCheck(level: .warning, code: "dates", message: "\(users(acc.exposedBeforeStart)) first exposed before the experiment started (\(Wording.date(start))). They are counted; check for test traffic or a wrong start date."))
        }
        if acc.exposedAfterEnd > 0, let end = exp.end {
            out.append(HealthCheck(level: .warning, code: "dates", message: "\(users(acc.exposedAfterEnd)) first exposed after the experiment ended (\(Wording.date(end))). They are counted; check whether the app still shows the experiment."))
        }
        for (key, count) in acc.exposedWhileStopped.sorted(by: { $0.key < $1.key }) {
            out.append(HealthCheck(level: .info, code: "safeguard", message: "\(users(count)) first exposed to \(q(key)) while a safeguard stop held it were shown the control's paywall, and are left out: \(q(key)) is reported as of its stop."))
        }
        if acc.exposedAfterAsOf > 0 {
            out.append(HealthCheck(level: .info, code: "dates", message: "\(users(acc.exposedAfterAsOf)) first exposed after \(Wording.date(r.asOf)), and left out."))
        }
        // An until after now is read as of another moment than asked: said, never silent.
        if let (asked, leftOut) = acc.inputs.untilAfterNow {
            let moment = asked > r.asOf ? "as of \(Wording.date(r.asOf)), the later of now and where the store's data ends" : "as of it: the store's data reaches past now"
            out.append(HealthCheck(level: .info, code: "until_after_now", message: "The report was asked as of \(Wording.date(asked)), which is after now, and is read \(moment); \(Wording.count(leftOut)) stored event\(leftOut == 1 ? " is" : "s are") at or after that moment and not counted.", count: leftOut))
        }
        if let since = r.since {
            out.append(HealthCheck(level: .info, code: "window", message: "Only users first exposed from \(Wording.date(since)) to \(Wording.date(r.asOf)) are counted."))
        }

        // People: identifies that would have merged two people change nothing and are counted.
        if acc.inputs.identityConflicts > 0 {
            let n = acc.inputs.identityConflicts
            out.append(HealthCheck(level: .info, code: "identity_conflicts", message: "\(Wording.count(n)) log-in\(n == 1 ? "" : "s") named a second account for an id already joined to another (or joined two accounts); \(n == 1 ? "it was" : "they were") kept and changed nothing, as two known ids never merge. Many of them suggest shared devices, or an app that does not start a new anonymous id at log-out.", count: n))
        }

        // People: a namespace keeps people apart; two ids exposed before they were linked
        // put one person in two of its experiments, counted in the one it saw first.
        if acc.namespaceConflicts > 0 {
            let n = acc.namespaceConflicts, left = acc.exposedToNeighbourFirst
            let others = acc.inputs.namespaceNeighbours.map(q).joined(separator: ", ")
            out.append(HealthCheck(level: .warning, code: "namespace_conflicts", message: "\(Wording.count(n)) \(n == 1 ? "person was" : "people were") exposed to this experiment and to another of its namespace (\(others)), which should never share a person: ids exposed before they were linked to one account. Each counts only in the experiment it saw first: \(Wording.count(left)) of them \(left == 1 ? "is" : "are") left out here, the rest are counted here.", count: n))
        }

        // The share of people with merged ids differs between arms (chi-square, p < 0.001):
        // one arm's paywall leads more users to sign in, or its exposures are linked differently.
        let merged = acc.usersOfSeveralIds
        if merged.contains(where: { $0 > 0 }),
           let test = ChiSquare.independence(zip(merged, acc.tallies).map { [$0, $1.users - $0] }), test.pValue < 0.001 {
            let shares = zip(merged, acc.tallies).map { m, t in "\(q(t.key)) \(Wording.percent(t.users > 0 ? Double(m) / Double(t.users) : 0, digits: 1))" }
            out.append(HealthCheck(level: .warning, code: "identity_imbalance", message: "The share of people with more than one id (an anonymous id joined to an account) differs between variants: \(shares.joined(separator: ", ")); \(Wording.pEquals(test.pValue)). People count once whatever their ids, but a variant whose paywall leads more users to sign in has more of its purchases joined to it: check that the app sends identified events (or AbctlClient's logIn) on every path, in every variant."))
        }

        // Store payments under a token no exposure named count for nobody.
        let (payments, unmatched) = (acc.inputs.storePayments, acc.inputs.unmatchedStorePayments)
        if payments > 0, unmatched * 100 > payments {
            out.append(HealthCheck(level: .warning, code: "unmatched_store_payments", message: "\(Wording.count(unmatched)) of \(Wording.count(payments)) App Store and Google Play payments in the experiment's dates (\(String(format: "%.1f", 100 * Double(unmatched) / Double(payments)))%) are under a store token no exposure has named, so they count for nobody: the app should send the token it hands the store (AbctlClient's storeAccountID) as store_account_id on its exposures.", count: unmatched))
        }

        // Left out.
        if acc.forcedUsers > 0 {
            out.append(HealthCheck(level: .info, code: "forced_users", message: "\(Wording.count(acc.forcedUsers)) forced QA \(acc.forcedUsers == 1 ? "user was" : "users were") left out.", count: acc.forcedUsers))
        }
        if !acc.unknownVariants.isEmpty {
            let total = acc.unknownVariants.values.reduce(0, +)
            let names = acc.unknownVariants.keys.sorted().map(q).joined(separator: ", ")
            out.append(HealthCheck(level: .warning, code: "unknown_variants", message: "\(users(total)) exposed to variants the experiment no longer has (\(names)); left out.", count: total))
        }
        return out.enumerated().sorted { ($0.element.level, $0.offset) < ($1.element.level, $1.offset) }.map(\.element)
    }
}

extension HealthChecks {
    static func users(_ n: Int) -> String { n == 1 ? "1 user was" : "\(Wording.count(n)) users were" }
}
