import TestSupport
import Testing
@testable import Statistics

/// Simulation checks of the frequentist guarantees, with a seeded SplitMix64 (deterministic).
///
/// Arms are drawn as exact binomials (sufficient statistics), so each run takes well under a
/// second even in debug builds. Bands are about ±3 Monte Carlo standard errors.
@Suite(.tags(.calibration)) struct CalibrationTests {
    /// One arm's conversions out of `users` at rate `rate`.
    static func arm(_ users: Int, _ rate: Double, _ rng: inout SplitMix64) throws -> Proportion {
        try Proportion(count: RandomVariates.binomial(trials: users, probability: rate, using: &rng), total: users)
    }

    @Test func binomialSamplerHasTheRightMoments() throws {
        var rng = SplitMix64(seed: 1)
        for (n, p) in [(50, 0.3), (1000, 0.02), (400, 0.9)] {
            let draws = try (0..<20_000).map { _ in Double(try RandomVariates.binomial(trials: n, probability: p, using: &rng)) }
            let mean = draws.reduce(0, +) / 20_000
            let variance = draws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 19_999
            let expectedVariance = Double(n) * p * (1 - p)
            // SE of the mean is sqrt(var/20000); 4 SE. Variance within 5% (SE ~1%).
            #expect(abs(mean - Double(n) * p) < 4 * (expectedVariance / 20_000).squareRoot(), "n=\(n) p=\(p) mean \(mean)")
            #expect(abs(variance / expectedVariance - 1) < 0.05, "n=\(n) p=\(p) variance \(variance)")
        }
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        #expect(a.next() == b.next())
    }

    // 4000 A/A experiments: the pooled z-test's false-positive rate is 5% ± 1.5% (SE 0.34%).
    // The same runs give the Wald interval's coverage of the true difference (0): 95% ± 1.5%.
    @Test func aaFalsePositiveRateAndCoverage() throws {
        var rng = SplitMix64(seed: 20_261_130)
        let runs = 4000
        var rejections = 0, covered = 0
        for _ in 0..<runs {
            let control = try Self.arm(2000, 0.05, &rng), variant = try Self.arm(2000, 0.05, &rng)
            let result = try ProportionComparison(control: control, variant: variant)
            if result.pValue < 0.05 { rejections += 1 }
            if result.absoluteInterval.contains(0) { covered += 1 }
        }
        let rate = Double(rejections) / Double(runs), coverage = Double(covered) / Double(runs)
        print("calibration: A/A z-test rejection rate \(rate), Wald coverage under H0 \(coverage)")
        #expect(abs(rate - 0.05) <= 0.015)
        #expect(abs(coverage - 0.95) <= 0.015)
    }

    // Coverage when the arms really differ (5% vs 6%, unequal arms 3000 / 2000): 95% ± 1.5%.
    @Test func waldCoverageUnderAnEffect() throws {
        var rng = SplitMix64(seed: 7)
        let runs = 4000
        var covered = 0
        for _ in 0..<runs {
            let control = try Self.arm(3000, 0.05, &rng), variant = try Self.arm(2000, 0.06, &rng)
            let result = try ProportionComparison(control: control, variant: variant)
            if result.absoluteInterval.contains(0.01) { covered += 1 }
        }
        let coverage = Double(covered) / Double(runs)
        print("calibration: Wald coverage of a true difference of 0.01: \(coverage)")
        #expect(abs(coverage - 0.95) <= 0.015)
    }

    // 1000 A/A experiments looked at every day for 30 days (200 users per arm per day):
    // stopping at the first always-valid p < 0.05 rejects at most 5% of the time (plus 1.4%, 2 SE,
    // for Monte Carlo noise), while the fixed-horizon z-test peeked at daily rejects far more often.
    @Test func sequentialTestSurvivesDailyPeeking() throws {
        var rng = SplitMix64(seed: 99)
        let runs = 1000, days = 30, daily = 200
        var sequentialRejections = 0, naiveRejections = 0
        var intervalMissed = 0
        for _ in 0..<runs {
            var test = try SequentialTest()
            var c = 0, v = 0, n = 0
            var naive = false
            for _ in 0..<days {
                c += try RandomVariates.binomial(trials: daily, probability: 0.05, using: &rng)
                v += try RandomVariates.binomial(trials: daily, probability: 0.05, using: &rng)
                n += daily
                let control = try Proportion(count: c, total: n), variant = try Proportion(count: v, total: n)
                test.update(control: control, variant: variant)
                if try ProportionComparison(control: control, variant: variant).pValue < 0.05 { naive = true }
            }
            if test.looks.contains(where: \.rejected) { sequentialRejections += 1 }
            if test.looks.contains(where: { !$0.interval.contains(0) }) { intervalMissed += 1 }
            if naive { naiveRejections += 1 }
        }
        let sequential = Double(sequentialRejections) / Double(runs), naive = Double(naiveRejections) / Double(runs)
        print("calibration: A/A daily looks x30, mSPRT rejection \(sequential), naive z-test rejection \(naive), CS missed 0 in \(Double(intervalMissed) / Double(runs))")
        #expect(sequential <= 0.05 + 0.014)
        #expect(Double(intervalMissed) / Double(runs) <= 0.05 + 0.014)
        #expect(naive > 0.10)
    }

    // 2000 experiments at the calculator's size for 10% → 12% (3841 per arm): the simulated power
    // of the pooled z-test is the calculator's 80% within 3 points (SE 0.9%).
    @Test func simulatedPowerMatchesCalculator() throws {
        let size = try SampleSize(baseline: 0.10, relativeMDE: 0.20)
        var rng = SplitMix64(seed: 2026)
        let runs = 2000
        var rejections = 0
        for _ in 0..<runs {
            let control = try Self.arm(size.usersPerVariant, 0.10, &rng), variant = try Self.arm(size.usersPerVariant, 0.12, &rng)
            if try ProportionComparison(control: control, variant: variant).pValue < 0.05 { rejections += 1 }
        }
        let power = Double(rejections) / Double(runs)
        print("calibration: simulated power \(power) at n=\(size.usersPerVariant) per arm, calculator 0.80")
        #expect(abs(power - 0.80) <= 0.03)
    }
}
