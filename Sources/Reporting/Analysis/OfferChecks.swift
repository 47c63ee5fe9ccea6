import ExperimentDefinitions
import Statistics

/// Offers the stores gave (`offer_mismatch`): per arm, trial starts whose store-granted `trial_days`
/// differs from what the arm tested, and users who paid at once where the arm offered a trial (the
/// store gave none: they were not eligible), over the arm's trial starters and purchasers. A health
/// warning says the arm did not show what it tested only when that is not noise: the one-sided exact
/// binomial test against 2% gives p < 0.01 and, where the control offers the same `trial_days`, the
/// one-sided Fisher exact test against the control's share does too. The stores fill `trial_days`
/// (docs/Webhooks.md); a trial start that does not say is not counted as a mismatch.
enum OfferChecks {
    static func figures(_ acc: ReportAccumulator) throws -> [OfferMismatch] {
        let arms = zip(acc.experiment.variants, acc.tallies).map { variant, t in
            let days = variant.paywall?.trialDays ?? 0
            return (key: t.key, days: days, t: t, paidWithoutTrial: days > 0 ? t.offerPurchasers : 0, users: t.offerTrialStarts + t.offerPurchasers)
        }
        return try arms.enumerated().map { i, arm in
            let count = arm.t.offerTrialDiffers + arm.paidWithoutTrial
            var m = OfferMismatch(variant: arm.key, armTrialDays: arm.days, trialStarts: arm.t.offerTrialStarts, trialDaysDiffer: arm.t.offerTrialDiffers,
                                  grantedDays: arm.t.offerGrantedDays.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                  paidWithoutTrial: arm.paidWithoutTrial, users: arm.users, share: nil, flagged: false)
            guard arm.users > 0 else {
                for field in ["share", "p_value", "control_p_value"] { m.nullReasons[field] = "no trial starters or purchasers" }
                return m
            }
            m.share = Double(count) / Double(arm.users)
            m.pValue = try ExactTests.binomialGreater(successes: count, trials: arm.users, probability: OfferMismatch.expectedShare)
            let control = arms[0]
            if i == 0 {
                m.nullReasons["control_p_value"] = "this is the control"
            } else if control.days != arm.days {
                m.nullReasons["control_p_value"] = "the control offers another trial (\(days(control.days)))"
            } else if control.users == 0 {
                m.nullReasons["control_p_value"] = "the control has no trial starters or purchasers"
            } else {
                let controlCount = control.t.offerTrialDiffers + control.paidWithoutTrial
                m.controlPValue = try ExactTests.fisherGreater(events: count, of: arm.users, againstEvents: controlCount, of: control.users)
            }
            m.flagged = m.pValue! < OfferMismatch.level && (m.controlPValue.map { $0 < OfferMismatch.level } ?? true)
            return m
        }
    }

    /// A warning per flagged arm; a note for an arm with mismatches the tests do not tell from noise.
    static func health(_ r: ReportFigures) -> [HealthCheck] {
        mismatchHealth(r) + r.storefrontClaims.map { c in
            HealthCheck(level: .info, code: "storefront_claims",
                        message: "“\(c.variant)” showed each storefront its own \(c.framing.rawValue) claim, computed from that storefront's prices: \(c.sentence).")
        }
    }

    static func mismatchHealth(_ r: ReportFigures) -> [HealthCheck] {
        r.offerMismatch.compactMap { m in
            guard m.count > 0 else { return nil }
            var parts: [String] = []
            if m.trialDaysDiffer > 0 {
                let granted = m.grantedDays.map { "\(Wording.count($0.users)) got \(days($0.days))" }.joined(separator: ", ")
                parts.append("\(Wording.count(m.trialDaysDiffer)) of its \(Wording.count(m.trialStarts)) trial starts got another trial than the \(days(m.armTrialDays)) it tested (\(granted))")
            }
            if m.paidWithoutTrial > 0 {
                parts.append("\(m.paidWithoutTrial == 1 ? "1 user" : "\(Wording.count(m.paidWithoutTrial)) users") paid at once where it offered a trial (the store gave none: not eligible)")
            }
            // The claim it showed, per storefront where they differ.
            if let claims = r.storefrontClaims.first(where: { $0.variant == m.variant }) { parts.append("its claim per storefront: \(claims.sentence)") }
            let what = parts.joined(separator: "; ")
            let share = "\(Wording.percent(m.share, digits: 2)) of its \(Wording.count(m.users)) trial starters and purchasers"
            let expected = Wording.percent(OfferMismatch.expectedShare, digits: 0)
            let control = r.offerMismatch.first
            let against = m.controlPValue.map { p in "; against the control's \(Wording.percent(control?.share, digits: 2)), Fisher's exact test \(Wording.pEquals(p))" } ?? ""
            let tests = "one-sided exact binomial test against \(expected) \(m.pValue.map(Wording.pEquals) ?? "n/a")\(against)"
            if m.flagged {
                return HealthCheck(level: .warning, code: "offer_mismatch",
                                   message: "“\(m.variant)” did not show what it tested: \(what); \(share), above \(expected) beyond noise (\(tests)). Its results compare what the stores gave, not the paywall it tested; check the offers set up in App Store Connect, Play Console and Stripe, and who is eligible for a trial.")
            }
            return HealthCheck(level: .info, code: "offer_mismatch",
                               message: "“\(m.variant)”: \(what) (\(share); not clearly above \(expected)\(m.controlPValue == nil ? "" : " and the control's share"): \(tests)).")
        }
    }

    static func days(_ n: Int) -> String { n == 0 ? "no trial" : n == 1 ? "1 day" : "\(n) days" }
}
