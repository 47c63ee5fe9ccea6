import Testing
@testable import Statistics

/// The mSPRT against an independent Python transcription of the formula (msprt.json).
///
/// No library implements the normal-mixture mSPRT for two proportions, so the fixture checks the
/// coding (plug-in variance, running minimum, nested intervals); validity is checked by simulation
/// in CalibrationTests.
struct SequentialTestTests {
    struct Expected: Decodable { let p_value: Double, lower: Double, upper: Double, log_ratio: Double }
    struct Case: Decodable { let looks: [[Int]], tau2: Double, alpha: Double, expected: [Expected] }

    // Closed-form arithmetic with one exp and one sqrt per look: 1e-11 relative.
    @Test func matchesReference() throws {
        let cases = try loadCases("msprt", as: Case.self)
        #expect(cases.count >= 200)
        for c in cases {
            var test = try SequentialTest(mixingVariance: c.tau2, alpha: c.alpha)
            var previous: SequentialTest.Look?
            for (look, expected) in zip(c.looks, c.expected) {
                let result = test.update(control: try Proportion(count: look[0], total: look[1]),
                                         variant: try Proportion(count: look[2], total: look[3]))
                #expect(isClose(result.pValue, expected.p_value, relative: 1e-11, absolute: 1e-300), "\(look)")
                #expect(isClose(result.logLikelihoodRatio, expected.log_ratio, relative: 1e-11, absolute: 1e-13), "\(look)")
                #expect(isClose(result.interval.lower, expected.lower, relative: 1e-11, absolute: 1e-14), "\(look)")
                #expect(isClose(result.interval.upper, expected.upper, relative: 1e-11, absolute: 1e-14), "\(look)")
                if let previous {
                    #expect(result.pValue <= previous.pValue)
                }
                previous = result
            }
            #expect(test.looks.count == c.looks.count)
        }
    }

    @Test func monitorMatchesUpdates() throws {
        let series = try [(100, 1000, 130, 1000), (210, 2000, 265, 2000)].map {
            (control: try Proportion(count: $0.0, total: $0.1), variant: try Proportion(count: $0.2, total: $0.3))
        }
        let looks = try SequentialTest.monitor(series)
        #expect(looks.count == 2 && looks[1].pValue <= looks[0].pValue)
        #expect(looks[1].interval.lower >= looks[0].interval.lower && looks[1].interval.upper <= looks[0].interval.upper)
    }
}
