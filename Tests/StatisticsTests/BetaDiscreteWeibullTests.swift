import Testing
@testable import Statistics

/// The beta-discrete-Weibull beside the sBG against scipy's optimiser on the same payers (bdw.json,
/// made by Fixtures/make_bdw.py).
struct BetaDiscreteWeibullTests {
    struct Arm: Decodable { let churned: [String: Int], censored: [String: Int] }
    struct Further: Decodable { let k: Int, due: Int, value: Double }
    struct Model: Decodable { let alpha: Double, beta: Double, c: Double, survival: [Double], further: [Further] }
    struct Case: Decodable {
        let arms: [Arm]
        let sbg_loglik: Double, bdw: [[Double]], c: Double, bdw_loglik: Double, statistic: Double, p_value: Double
        let model: Model
    }

    static func history(_ arm: Arm) -> RenewalHistory {
        var h = RenewalHistory()
        for (k, n) in arm.churned { h.add(payments: Int(k)!, churned: true, count: n) }
        for (k, n) in arm.censored { h.add(payments: Int(k)!, churned: false, count: n) }
        return h
    }

    @Test func survivalAndFurtherPaymentsMatchTheFormula() throws {
        for c in try loadCases("bdw", as: Case.self) {
            let m = BetaDiscreteWeibull(alpha: c.model.alpha, beta: c.model.beta, c: c.model.c)
            for (t, s) in c.model.survival.enumerated() { #expect(isClose(m.survival(t), s, relative: 1e-11), "S(\(t))") }
            for f in c.model.further {
                #expect(isClose(m.expectedFurtherPayments(after: f.k, due: f.due), f.value, relative: 1e-11, absolute: 1e-14), "\(f.k) \(f.due)")
            }
        }
    }

    @Test func cOfOneIsTheShiftedBetaGeometric() {
        let s = ShiftedBetaGeometric(alpha: 1.3, beta: 4.2)
        let b = BetaDiscreteWeibull(s)
        for t in 0..<20 { #expect(isClose(b.survival(t), s.survival(t), relative: 1e-12)) }
        #expect(isClose(b.expectedFurtherPayments(after: 3, due: 12), s.expectedFurtherPayments(after: 3, due: 12), relative: 1e-12))
    }

    // The likelihood is flat along ridges, so parameters are compared loosely and the maximised
    // log-likelihoods (what the test reads) tightly; the maximum is never below scipy's.
    @Test func fitsAndTheTestMatchScipy() throws {
        let cases = try loadCases("bdw", as: Case.self)
        #expect(cases.count >= 25)
        var preferred = 0
        for c in cases {
            let histories = c.arms.map { Optional(Self.history($0)) }
            let choice = try RenewalModelChoice.fit(histories)
            let sbgLL = zip(choice.sbg, histories).reduce(0.0) { $0 + BetaDiscreteWeibull($1.0!).logLikelihood($1.1!) }
            #expect(isClose(sbgLL, c.sbg_loglik, relative: 1e-9), "sbg \(sbgLL) vs \(c.sbg_loglik)")
            let bdw = try #require(choice.bdw)
            let bdwLL = zip(bdw, histories).reduce(0.0) { $0 + $1.0!.logLikelihood($1.1!) }
            #expect(bdwLL >= c.bdw_loglik - 1e-7 * abs(c.bdw_loglik), "bdw \(bdwLL) vs \(c.bdw_loglik)")
            #expect(isClose(bdwLL, c.bdw_loglik, relative: 1e-9), "bdw \(bdwLL) vs \(c.bdw_loglik)")
            // The search reads arms' values back from a cache; the maximum it reports is the one computed afresh, but
            // for the slack of 1e-12 of the value its line search allows each step.
            #expect(isClose(choice.statistic, max(0, 2 * (bdwLL - sbgLL)), relative: 0, absolute: 1e-10 * abs(bdwLL)),
                    "statistic \(choice.statistic) vs \(2 * (bdwLL - sbgLL))")
            #expect(isClose(bdw[0]!.c, c.c, relative: 2e-4), "c \(bdw[0]!.c) vs \(c.c)")
            for (m, p) in zip(bdw, c.bdw) {
                #expect(isClose(m!.alpha, p[0], relative: 2e-3) && isClose(m!.beta, p[1], relative: 2e-3), "\(m!) vs \(p)")
            }
            #expect(isClose(choice.statistic, c.statistic, relative: 1e-4, absolute: 2e-5), "statistic \(choice.statistic) vs \(c.statistic)")
            #expect(isClose(choice.pValue, c.p_value, relative: 1e-3, absolute: 1e-5))
            #expect(!choice.onBound)
            #expect(choice.chosen() == (c.p_value < 0.05 ? .bdw : .sbg))
            if choice.chosen() == .bdw { preferred += 1 }
        }
        // Both outcomes of the test are exercised.
        #expect(preferred > 0 && preferred < cases.count)
    }

    struct ShortFit: Decodable { let alpha: Double, beta: Double, loglik: Double }
    struct ShortCase: Decodable { let arms: [Arm], sbg: [ShortFit], bdw_loglik: Double, statistic: Double }

    // Payers with at most two renewals (a monthly plan 90 days in): both maxima reached, so the test's
    // statistic is scipy's (short_tenure.json, made by Fixtures/make_short_tenure.py).
    @Test func shortTenureFitsReachScipysMaximum() throws {
        let cases = try loadCases("short_tenure", as: ShortCase.self)
        #expect(cases.count >= 12)
        for (i, c) in cases.enumerated() {
            let histories = c.arms.map { Optional(Self.history($0)) }
            let choice = try RenewalModelChoice.fit(histories)
            for (arm, (fit, scipy)) in zip(choice.sbg, c.sbg).enumerated() {
                let model = try #require(fit)
                let ll = BetaDiscreteWeibull(model).logLikelihood(histories[arm]!)
                #expect(!model.capped, "case \(i) arm \(arm): on the cap")
                #expect(isClose(ll, scipy.loglik, relative: 1e-9), "case \(i) arm \(arm): log-likelihood \(ll) vs \(scipy.loglik)")
                #expect(isClose(model.alpha, scipy.alpha, relative: 1e-4) && isClose(model.beta, scipy.beta, relative: 1e-4),
                        "case \(i) arm \(arm): \(model.alpha), \(model.beta) vs \(scipy.alpha), \(scipy.beta)")
            }
            #expect(isClose(choice.statistic, c.statistic, relative: 0, absolute: 1e-4), "case \(i): statistic \(choice.statistic) vs \(c.statistic)")
            #expect(choice.chosen() == .sbg)
        }
    }

    @Test func withoutChurnOrRenewalsTheSbgServes() throws {
        var noChurn = RenewalHistory()
        noChurn.add(payments: 3, churned: false, count: 40)
        let choice = try RenewalModelChoice.fit([noChurn, nil])
        #expect(choice.bdw == nil && choice.chosen() == .sbg)
    }
}
