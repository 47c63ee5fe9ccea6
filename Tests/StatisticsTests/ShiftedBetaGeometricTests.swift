import Foundation
import Testing
@testable import Statistics

/// The shifted-beta-geometric fit, survival and forecast against scipy (Fixtures/make_sbg.py).
struct ShiftedBetaGeometricTests {
    struct Forecast: Decodable { let nonpayers: Int, price: Double, due: Int, revenue_per_user: Double }
    struct Case: Decodable {
        let churned: [[Int]], censored: [[Int]]
        let alpha: Double, beta: Double, capped: Bool
        let further: [[Double]]
        let forecast: Forecast

        var history: RenewalHistory {
            var h = RenewalHistory()
            for pair in churned { h.add(payments: pair[0], churned: true, count: pair[1]) }
            for pair in censored { h.add(payments: pair[0], churned: false, count: pair[1]) }
            return h
        }
    }

    // scipy's optimum is accurate to ~1e-7 in the flat direction; we ask for 1e-4 relative.
    @Test func fitMatchesScipy() throws {
        let cases = try loadCases("sbg", as: Case.self)
        #expect(cases.count >= 30)
        #expect(cases.contains { $0.capped } && cases.contains { !$0.capped })
        for (i, c) in cases.enumerated() {
            let model = try ShiftedBetaGeometric.fit(c.history)
            #expect(model.capped == c.capped, "case \(i): capped \(model.capped)")
            #expect(isClose(model.alpha, c.alpha, relative: 1e-4), "case \(i): alpha \(model.alpha) vs \(c.alpha)")
            #expect(isClose(model.beta, c.beta, relative: 1e-4), "case \(i): beta \(model.beta) vs \(c.beta)")
            // Expected further payments from scipy's own alpha and beta: the formula, to rounding.
            let scipyModel = ShiftedBetaGeometric(alpha: c.alpha, beta: c.beta)
            for f in c.further {
                let (k, due) = (Int(f[0]), Int(f[1]))
                #expect(isClose(scipyModel.expectedFurtherPayments(after: k, due: due), f[2], relative: 1e-10, absolute: 1e-12), "case \(i): further(\(k), \(due))")
                #expect(isClose(model.expectedFurtherPayments(after: k, due: due), f[2], relative: 1e-4, absolute: 1e-9), "case \(i): fitted further(\(k), \(due))")
            }
        }
    }

    @Test func forecastMatchesScipy() throws {
        for (i, c) in try loadCases("sbg", as: Case.self).enumerated() {
            var users: [RevenueForecast.Cell: Int] = [:]
            let price = c.forecast.price
            users[RevenueForecast.Cell(period: nil, price: 0, payments: 0, churned: false, due: 0, revenue: 0), default: 0] += c.forecast.nonpayers
            for pair in c.churned {
                users[RevenueForecast.Cell(period: "P1M", price: price, payments: pair[0], churned: true, due: c.forecast.due, revenue: Double(pair[0]) * price), default: 0] += pair[1]
            }
            for pair in c.censored {
                users[RevenueForecast.Cell(period: "P1M", price: price, payments: pair[0], churned: false, due: c.forecast.due, revenue: Double(pair[0]) * price), default: 0] += pair[1]
            }
            let estimate = try RevenueForecast(users: users).estimate()
            #expect(isClose(estimate.revenuePerUser, c.forecast.revenue_per_user, relative: 1e-5), "case \(i): \(estimate.revenuePerUser) vs \(c.forecast.revenue_per_user)")
        }
    }

    @Test func survivalIsTheBetaRatio() {
        // S(t) = B(α, β + t)/B(α, β); P(T = t) = B(α + 1, β + t − 1)/B(α, β).
        let m = ShiftedBetaGeometric(alpha: 1.3, beta: 4.2)
        for t in 0..<20 {
            let s = exp(SpecialFunctions.logBeta(1.3, 4.2 + Double(t)) - SpecialFunctions.logBeta(1.3, 4.2))
            #expect(isClose(m.survival(t), s, relative: 1e-12))
            if t >= 1 {
                let p = exp(SpecialFunctions.logBeta(2.3, 4.2 + Double(t) - 1) - SpecialFunctions.logBeta(1.3, 4.2))
                #expect(isClose(m.churnProbability(at: t), p, relative: 1e-11))
            }
        }
    }

    @Test func degenerateHistories() throws {
        // Nobody churned: nobody will (α = 0); nobody renewed: everyone churns after one payment (β = 0).
        let none = try ShiftedBetaGeometric.fit(RenewalHistory(censored: [3: 10, 1: 4]))
        #expect(none.expectedFurtherPayments(after: 3, due: 13) == 10)
        let all = try ShiftedBetaGeometric.fit(RenewalHistory(churned: [1: 10], censored: [1: 3]))
        #expect(all.expectedFurtherPayments(after: 1, due: 13) == 0)
        #expect(throws: StatisticsError.self) { try ShiftedBetaGeometric.fit(RenewalHistory()) }
    }

    // Nobody yet at risk of a second renewal (a monthly plan 60 days in): the likelihood fixes the first
    // renewal's churn, 30 of 100, and nothing else, so the fit is the plain geometric one on the cap, and
    // every bootstrap draw reads its data the same way (the draws surround the point, not lie above it).
    @Test func oneChurnRateSeenIsGeometric() throws {
        let history = RenewalHistory(churned: [1: 30], censored: [1: 50, 2: 70])
        let model = try ShiftedBetaGeometric.fit(history)
        #expect(model.capped)
        #expect(isClose(model.alpha / (model.alpha + model.beta), 0.3, relative: 1e-9))
        var users: [RevenueForecast.Cell: Int] = [RevenueForecast.Cell(period: nil, price: 0, payments: 0, churned: false, due: 0, revenue: 0): 400]
        for (k, n) in history.churned { users[RevenueForecast.Cell(period: "P1M", price: 10, payments: k, churned: true, due: 12, revenue: Double(k) * 10)] = n }
        for (k, n) in history.censored { users[RevenueForecast.Cell(period: "P1M", price: 10, payments: k, churned: false, due: 12, revenue: Double(k) * 10)] = n }
        let forecast = RevenueForecast(users: users)
        let point = try forecast.estimate().revenuePerUser
        let draws = try forecast.bootstrap(draws: 200, seed: 3).revenue
        let below = Double(draws.filter { $0 < point }.count) / Double(draws.count)
        #expect(below > 0.3 && below < 0.7, "\(below) of the draws below the point")
    }

    @Test func splittingBinomialHasBinomialMoments() throws {
        var rng = SplitMix64(seed: 7)
        let (n, p) = (1_000_000, 0.03)
        let draws = try (0..<4000).map { _ in Double(try RandomVariates.binomialBySplitting(trials: n, probability: p, using: &rng)) }
        let mean = draws.reduce(0, +) / Double(draws.count)
        let variance = draws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(draws.count - 1)
        // Mean within 4 standard errors; variance within 10% of n·p·(1 − p).
        #expect(abs(mean - Double(n) * p) < 4 * (Double(n) * p * (1 - p) / Double(draws.count)).squareRoot())
        #expect(abs(variance / (Double(n) * p * (1 - p)) - 1) < 0.1)
        let counts = try RandomVariates.multinomial(trials: 1000, weights: [5, 0, 3, 2], using: &rng)
        #expect(counts.reduce(0, +) == 1000 && counts[1] == 0)
    }
}
