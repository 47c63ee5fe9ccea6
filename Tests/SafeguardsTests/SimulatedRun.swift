import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// Synthetic users of a two-arm trial experiment, with known true rates, as facts: what the
/// calibration and power tests evaluate on the schedule for the whole run.
struct SimulatedRun {
    static let t0 = Date(timeIntervalSince1970: 1_796_083_200)   // 2026-12-01T00:00:00Z
    static let hour: Int64 = 3_600_000_000

    var facts: [UserFacts]   // by first exposure

    /// `users` arrive evenly over `days`; half start a 3-day trial; a trial starter cancels within
    /// 24 h with `day0` (per arm), else later with 20%; half the rest pay at the trial's end; a
    /// payer refunds within 10 days with 5%.
    init(seed: UInt64, users: Int, days: Int, day0: [Double], arms: [String] = ["control", "treatment"]) {
        var rng = SplitMix64(seed: seed)
        let span = Int64(days) * 24 * Self.hour
        let start = Timestamp(Self.t0).microseconds
        var rows: [UserFacts] = []
        rows.reserveCapacity(users)
        for n in 0..<users {
            let a = Int.random(in: 0..<arms.count, using: &rng)
            let exposure = start + span * Int64(n) / Int64(users)
            var f = UserFacts(experiment: "guarded", userID: "u\(seed)-\(n)", variant: arms[a], firstExposure: Timestamp(microseconds: exposure))
            if Double.random(in: 0..<1, using: &rng) < 0.5 {
                let trial = exposure + Int64.random(in: 0..<Self.hour, using: &rng)
                f.trialStart = Timestamp(microseconds: trial)
                if Double.random(in: 0..<1, using: &rng) < day0[a] {
                    f.firstCancel = Timestamp(microseconds: trial + Int64.random(in: 0..<24 * Self.hour, using: &rng))
                } else if Double.random(in: 0..<1, using: &rng) < 0.2 {
                    f.firstCancel = Timestamp(microseconds: trial + Int64.random(in: 25 * Self.hour..<30 * 24 * Self.hour, using: &rng))
                } else if Double.random(in: 0..<1, using: &rng) < 0.5 {
                    let paid = trial + 72 * Self.hour
                    f.firstPaid = Timestamp(microseconds: paid)
                    f.firstConverted = f.firstPaid
                    if Double.random(in: 0..<1, using: &rng) < 0.05 {
                        f.refundedAt = Timestamp(microseconds: paid + Int64.random(in: 0..<240 * Self.hour, using: &rng))
                    }
                }
            }
            rows.append(f)
        }
        facts = rows
    }
}

/// Facts from memory, for evaluating the same simulated run at many times.
struct MemoryFacts: FactsReader {
    let rows: [UserFacts]

    func forEachFact(experiment: String, since: Timestamp?, until: Timestamp?, _ body: (UserFacts) throws -> Void) throws {
        // Rows are in first-exposure order: stop at `until`.
        for f in rows {
            if let until, f.firstExposure >= until { break }
            if let since, f.firstExposure < since { continue }
            if f.experiment == experiment { try body(f) }
        }
    }

    func netRevenue(experiment: String, asOf: Timestamp, since: Timestamp?, until: Timestamp?) throws -> [UserID: Double] { [:] }

    func experiments() throws -> [ExperimentSummary] { [] }
}

extension Experiment {
    /// A two-arm experiment with 3-day trials, guarded on Day-0 cancels and refunds.
    static func guarded(checkMinutes: Double = 360, minUsers: Int = 300, alpha: Double = 0.05) -> Experiment {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 3, copy: .staticText("Hear every bird."))
        return Experiment(id: "guarded", name: "Guarded", status: .running, start: SimulatedRun.t0,
                          variants: [Variant(key: "control", paywall: paywall), Variant(key: "treatment", paywall: paywall)],
                          safeguards: SafeguardsConfig(metrics: [.day0CancelRate, Metric.named("refund_rate")], alpha: alpha,
                                                       minUsers: minUsers, checkMinutes: checkMinutes))
    }
}
