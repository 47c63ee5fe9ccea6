import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// SPEC §5 offers, counted by hand: per arm, trial starts whose store-granted `trial_days` differs
/// from the arm's, and users who paid at once where the arm offered a trial, over the arm's trial
/// starts; above 2% a health warning, in the JSON under `offer_mismatch`.
@Suite struct OfferMismatchTests {
    typealias F = Fixtures

    /// control tests 3 days, ai 7 days, none tests no trial. `starts` trial starters per arm, of which
    /// `control` and `ai` got `differ` other trials, and `paidAtOnce` users paid with no trial.
    static func report(starts: Int = 100, differ: Int = 0, paidAtOnce: Int = 0, late: Bool = false) throws -> Report {
        let exp = F.experiment(variants: [("control", 1, 3), ("ai", 1, 7), ("none", 1, 0)])
        var acc = ReportAccumulator(experiment: exp, options: ReportOptions(generatedAt: F.date(F.start + 20 * F.day)))
        for (arm, days) in [("control", 3), ("ai", 7), ("none", 0)] {
            for i in 0..<starts {
                let exposure = F.start + F.hour
                var row = UserFacts.row(userID: UserID("\(arm)-t\(i)"), variant: arm, firstExposure: exposure, trialStart: exposure + F.hour)
                // The first `differ` got 14 days, the next one said nothing, the rest got the arm's trial.
                row.grantedTrialDays = i < differ ? 14 : i == differ ? nil : days
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

    @Test func countsPerArmAsByHand() throws {
        let r = try Self.report(starts: 100, differ: 2, paidAtOnce: 1, late: true)
        let m = Dictionary(uniqueKeysWithValues: r.offerMismatch.map { ($0.variant, $0) })
        let control = try #require(m["control"]), ai = try #require(m["ai"]), none = try #require(m["none"])
        #expect(control.armTrialDays == 3 && control.trialStarts == 100 && control.trialDaysDiffer == 2 && control.paidWithoutTrial == 1)
        #expect(control.count == 3 && control.share == 0.03 && control.flagged)
        #expect(control.grantedDays.map(\.days) == [14] && control.grantedDays.map(\.users) == [2])
        #expect(ai.count == 3 && ai.flagged)
        // An arm that offers no trial: paying at once is what it tested; the 14-day trials still differ.
        #expect(none.paidWithoutTrial == 0 && none.trialDaysDiffer == 2 && none.share == 0.02 && !none.flagged)
        let warnings = r.health.filter { $0.code == "offer_mismatch" }
        #expect(warnings.filter { $0.level == .warning }.count == 2 && warnings.filter { $0.level == .info }.count == 1, "\(warnings)")
        let aiWarning = try #require(warnings.first { $0.message.hasPrefix("“ai”") })
        #expect(aiWarning.message.contains("2 of its 100 trial starts got another trial than the 7 days it tested (2 got 14 days)"), "\(aiWarning.message)")
        #expect(aiWarning.message.contains("1 user paid at once where it offered a trial") && aiWarning.message.contains("3.00% of its trial starts"), "\(aiWarning.message)")
    }

    @Test func atOrUnderTwoPercentIsANoteAndNothingIsNothing() throws {
        let two = try Self.report(starts: 100, differ: 2)
        #expect(two.offerMismatch.allSatisfy { !$0.flagged })
        #expect(two.health.filter { $0.code == "offer_mismatch" }.allSatisfy { $0.level == .info })
        let clean = try Self.report(starts: 100)
        #expect(clean.offerMismatch.allSatisfy { $0.count == 0 && $0.share == 0 })
        #expect(!clean.health.contains { $0.code == "offer_mismatch" })
        // No trial starts at all, yet users paid at once: flagged, the share null with its reason.
        let noTrials = try Self.report(starts: 0, paidAtOnce: 3)
        let control = try #require(noTrials.offerMismatch.first)
        #expect(control.share == nil && control.nullReason == "no trial starts" && control.flagged)
    }

    @Test func theJSONCarriesThePerArmFigures() throws {
        let r = try Self.report(starts: 100, differ: 2, paidAtOnce: 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        let offers = try #require(json["offer_mismatch"] as? [String: Any])
        let ai = try #require(offers["ai"] as? [String: Any])
        #expect(ai["arm_trial_days"] as? Int == 7 && ai["trial_starts"] as? Int == 100 && ai["trial_days_differ"] as? Int == 2)
        #expect(ai["paid_without_trial"] as? Int == 1 && ai["count"] as? Int == 3 && ai["share"] as? Double == 0.03 && ai["flagged"] as? Bool == true)
        #expect((ai["granted_trial_days"] as? [String: Any])?["14"] as? Int == 2)
        let health = try #require(json["health"] as? [[String: Any]])
        #expect(health.contains { $0["code"] as? String == "offer_mismatch" && $0["level"] as? String == "warning" })
    }
}
