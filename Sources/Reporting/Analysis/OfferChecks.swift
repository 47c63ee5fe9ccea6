import ExperimentDefinitions

/// SPEC §5 offers: per arm, trial starts whose store-granted `trial_days` differs from what the arm
/// tested, and users who paid at once where the arm offered a trial (the store gave none: they were
/// not eligible), over the arm's trial starts; above 2% a health warning says the arm did not show
/// what it tested. The stores fill `trial_days` (docs/Webhooks.md); a trial start that does not
/// say is not counted as a mismatch.
enum OfferChecks {
    static func figures(_ acc: ReportAccumulator) -> [OfferMismatch] {
        zip(acc.experiment.variants, acc.tallies).map { variant, t in
            let count = t.offerTrialDiffers + t.offerPaidWithoutTrial
            let share = t.offerTrialStarts > 0 ? Double(count) / Double(t.offerTrialStarts) : nil
            return OfferMismatch(variant: t.key, armTrialDays: variant.paywall?.trialDays ?? 0, trialStarts: t.offerTrialStarts,
                                 trialDaysDiffer: t.offerTrialDiffers,
                                 grantedDays: t.offerGrantedDays.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                 paidWithoutTrial: t.offerPaidWithoutTrial, share: share,
                                 nullReason: share == nil ? "no trial starts" : nil,
                                 flagged: count > 0 && (share.map { $0 > OfferMismatch.warningShare } ?? true))
        }
    }

    /// A warning per flagged arm; a note for an arm with mismatches at or under 2%.
    static func health(_ r: ReportFigures) -> [HealthCheck] {
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
            let share = m.share.map { "\(Wording.percent($0, digits: 2)) of its trial starts" } ?? "and it has no trial starts"
            let what = parts.joined(separator: "; ")
            if m.flagged {
                return HealthCheck(level: .warning, code: "offer_mismatch",
                                   message: "“\(m.variant)” did not show what it tested: \(what); \(share), above \(Wording.percent(OfferMismatch.warningShare, digits: 0)). Its results compare what the stores gave, not the paywall it tested; check the offers set up in App Store Connect, Play Console and Stripe, and who is eligible for a trial.")
            }
            return HealthCheck(level: .info, code: "offer_mismatch",
                               message: "“\(m.variant)”: \(what) (\(share), at most \(Wording.percent(OfferMismatch.warningShare, digits: 0)) is expected).")
        }
    }

    static func days(_ n: Int) -> String { n == 0 ? "no trial" : n == 1 ? "1 day" : "\(n) days" }
}
