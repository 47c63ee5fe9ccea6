import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// `offer_mismatch`, counted by hand: per arm, trial starts whose store-granted `trial_days` differs
/// from the arm's, and users who paid at once where the arm offered a trial, over the arm's trial
/// starters and purchasers; a health warning only when a one-sided exact binomial test against 2%
/// and, where the control offers the same trial, a one-sided Fisher exact test against the control's
/// share both give p < 0.01. p-values from scipy `binomtest` / `fisher_exact` (alternative "greater").
@Suite struct OfferMismatchTests {
    typealias F = Fixtures

    /// `starts` trial starters per arm, of which the first `differ[arm]` got 14-day trials, and
    /// `paidAtOnce` users per arm who paid with no trial.
    static func report(arms: [(String, Int)] = [("control", 3), ("ai", 7), ("none", 0)], starts: Int = 100, differ: [String: Int] = [:],
                       paidAtOnce: Int = 0, late: Bool = false) throws -> Report {
        let exp = F.experiment(variants: arms.map { ($0.0, 1, $0.1) })
        var acc = ReportAccumulator(experiment: exp, options: ReportOptions(clock: F.date(F.start + 20 * F.day)))
        for (arm, days) in arms {
            let differing = differ[arm] ?? 0
            for i in 0..<starts {
                let exposure = F.start + F.hour
                var row = UserFacts.row(userID: UserID("\(arm)-t\(i)"), variant: arm, firstExposure: exposure, trialStart: exposure + F.hour)
                // The first `differing` got 14 days, the next one said nothing, the rest got the arm's trial.
                row.grantedTrialDays = i < differing ? 14 : i == differing ? nil : days
                acc.add(row)
            }
            for i in 0..<paidAtOnce {
                acc.add(UserFacts.row(userID: UserID("\(arm)-p\(i)"), variant: arm, firstExposure: F.start, firstPaid: F.start + F.hour, netRevenue: 9.99))
            }
            // A trial start after the as-of time is not counted.
            var future = UserFacts.row(userID: UserID("\(arm)-late"), variant: arm, firstExposure: F.start, trialStart: F.start + 30 * F.day)
            future.grantedTrialDays = late ? 1 : days
            acc.add(future)
        }
        return try ReportAnalyzer.analyze(acc)
    }

    static func byArm(_ r: Report) -> [String: OfferMismatch] { Dictionary(uniqueKeysWithValues: r.offerMismatch.map { ($0.variant, $0) }) }

    @Test func countsPerArmAsByHand() throws {
        let r = try Self.report(differ: ["control": 2, "ai": 2, "none": 2], paidAtOnce: 1, late: true)
        let m = Self.byArm(r)
        let control = try #require(m["control"]), ai = try #require(m["ai"]), none = try #require(m["none"])
        #expect(control.armTrialDays == 3 && control.trialStarts == 100 && control.trialDaysDiffer == 2 && control.paidWithoutTrial == 1)
        #expect(control.users == 101 && control.count == 3 && control.share == 3.0 / 101)
        #expect(control.grantedDays.map(\.days) == [14] && control.grantedDays.map(\.users) == [2])
        // 3 of 101 against 2%: scipy binomtest p = 0.3287826558796165, noise.
        #expect(abs(control.pValue! - 0.3287826558796165) < 1e-12 && !control.flagged)
        #expect(control.controlPValue == nil && control.nullReasons["control_p_value"] == "this is the control")
        // ai offers 7 days against the control's 3: no Fisher test, its reason instead.
        #expect(ai.count == 3 && !ai.flagged && ai.controlPValue == nil && ai.nullReasons["control_p_value"] == "the control offers another trial (3 days)")
        // An arm that offers no trial: paying at once is what it tested; the 14-day trials still differ.
        #expect(none.paidWithoutTrial == 0 && none.trialDaysDiffer == 2 && none.users == 101 && none.count == 2 && !none.flagged)
        let notes = r.health.filter { $0.code == "offer_mismatch" }
        #expect(notes.count == 3 && notes.allSatisfy { $0.level == .info }, "\(notes)")
        let aiNote = try #require(notes.first { $0.message.hasPrefix("“ai”") })
        #expect(aiNote.message.contains("2 of its 100 trial starts got another trial than the 7 days it tested (2 got 14 days)"), "\(aiNote.message)")
        #expect(aiNote.message.contains("1 user paid at once where it offered a trial") && aiNote.message.contains("2.97% of its 101 trial starters and purchasers"), "\(aiNote.message)")
        #expect(aiNote.message.contains("not clearly above 2%") && aiNote.message.contains("p = 0.3288"), "\(aiNote.message)")
    }

    /// The demo's case: a share a little above 2% is no warning without a test behind it.
    @Test func aShareJustAboveTwoPercentIsNoWarning() throws {
        let r = try Self.report(starts: 100, differ: ["ai": 3])
        let ai = try #require(Self.byArm(r)["ai"])
        #expect(ai.share == 0.03 && !ai.flagged)
        #expect(!r.health.contains { $0.code == "offer_mismatch" && $0.level == .warning })
    }

    @Test func farAboveTwoPercentIsAWarning() throws {
        // 10 of 100 against 2%: scipy p = 3.441680604304282e-05; the control offers another trial, so the binomial test alone decides.
        let r = try Self.report(differ: ["ai": 10])
        let ai = try #require(Self.byArm(r)["ai"])
        #expect(abs(ai.pValue! - 3.441680604304282e-05) < 1e-15 && ai.flagged)
        let warning = try #require(r.health.first { $0.code == "offer_mismatch" && $0.level == .warning })
        #expect(warning.message.hasPrefix("“ai” did not show what it tested: 10 of its 100 trial starts got another trial than the 7 days it tested"), "\(warning.message)")
    }

    @Test func whereTheControlOffersTheSameTrialItsShareIsTheBar() throws {
        // Both arms 7 days. ai 12 of 100 against the control's 10 of 100: binomial p = 8.42e-07, but Fisher p = 0.4109.
        let same = try Self.report(arms: [("control", 7), ("ai", 7)], differ: ["control": 10, "ai": 12])
        let ai = try #require(Self.byArm(same)["ai"]), control = try #require(Self.byArm(same)["control"])
        #expect(abs(ai.pValue! - 8.420024304713487e-07) < 1e-15 && abs(ai.controlPValue! - 0.41087425817549966) < 1e-12)
        #expect(!ai.flagged)
        // The control's own mismatches have only the binomial test: flagged.
        #expect(control.flagged && control.controlPValue == nil)
        // Against the control's 1 of 100: Fisher p = 0.0012697487279323503, flagged.
        let apart = try Self.report(arms: [("control", 7), ("ai", 7)], differ: ["control": 1, "ai": 12])
        let flagged = try #require(Self.byArm(apart)["ai"])
        #expect(abs(flagged.controlPValue! - 0.0012697487279323503) < 1e-12 && flagged.flagged)
    }

    @Test func nothingIsNothingAndNoUsersSaySo() throws {
        let clean = try Self.report()
        #expect(clean.offerMismatch.allSatisfy { $0.count == 0 && $0.share == 0 && !$0.flagged })
        #expect(!clean.health.contains { $0.code == "offer_mismatch" })
        // No trial starts at all, yet users paid at once: 3 of 3 purchasers, scipy p = 8e-06.
        let noTrials = try Self.report(starts: 0, paidAtOnce: 3)
        let control = try #require(noTrials.offerMismatch.first)
        #expect(control.users == 3 && control.share == 1 && abs(control.pValue! - 8e-06) < 1e-15 && control.flagged)
        let empty = try Self.report(starts: 0)
        #expect(empty.offerMismatch.allSatisfy { $0.share == nil && $0.pValue == nil && $0.nullReasons["share"] == "no trial starters or purchasers" })
    }

    @Test func theJSONCarriesThePerArmFigures() throws {
        let r = try Self.report(differ: ["ai": 10], paidAtOnce: 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        let offers = try #require(json["offer_mismatch"] as? [String: Any])
        let ai = try #require(offers["ai"] as? [String: Any])
        #expect(ai["arm_trial_days"] as? Int == 7 && ai["trial_starts"] as? Int == 100 && ai["trial_days_differ"] as? Int == 10)
        #expect(ai["paid_without_trial"] as? Int == 1 && ai["users"] as? Int == 101 && ai["count"] as? Int == 11 && ai["flagged"] as? Bool == true)
        #expect(ai["p_value"] is Double && ai["control_p_value"] is NSNull)
        #expect((ai["null_reasons"] as? [String: String])?["control_p_value"] == "the control offers another trial (3 days)")
        #expect((ai["granted_trial_days"] as? [String: Any])?["14"] as? Int == 10)
        let health = try #require(json["health"] as? [[String: Any]])
        #expect(health.contains { $0["code"] as? String == "offer_mismatch" && $0["level"] as? String == "warning" })
    }
}
