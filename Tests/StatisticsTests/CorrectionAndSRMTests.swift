import Testing
@testable import Statistics

/// Holm / Benjamini–Hochberg against statsmodels, sample ratio mismatch against scipy.
struct CorrectionAndSRMTests {
    struct MultipleCase: Decodable { let p: [Double], holm: [Double], bh: [Double] }
    struct SRMCase: Decodable { let counts: [Int], weights: [Double], statistic: Double, p_value: Double }

    // Products and running max/min of inputs: exact up to one rounding, so 1e-14 relative.
    @Test func adjustmentsMatchStatsmodels() throws {
        let cases = try loadCases("multiple", as: MultipleCase.self)
        #expect(cases.count >= 200)
        for c in cases {
            let holm = try MultipleTesting.holm(c.p), bh = try MultipleTesting.benjaminiHochberg(c.p)
            for i in c.p.indices {
                #expect(isClose(holm[i], c.holm[i], relative: 1e-14, absolute: 1e-300), "\(c)")
                #expect(isClose(bh[i], c.bh[i], relative: 1e-14, absolute: 1e-300), "\(c)")
            }
        }
        #expect(try MultipleTesting.holm([]) == [])
    }

    /// A test that could not be run is no member of the family: Holm over the others, nil kept.
    @Test func holmSkipsMissingPValues() throws {
        let cases = try loadCases("multiple", as: MultipleCase.self).filter { $0.p.count >= 2 }
        for c in cases.prefix(40) {
            // nil interleaved after every p-value: the same adjusted values, at the same places.
            let holed: [Double?] = c.p.flatMap { [$0, nil] }
            let adjusted = try MultipleTesting.holm(holed)
            for i in c.p.indices {
                #expect(adjusted[2 * i + 1] == nil)
                #expect(isClose(adjusted[2 * i]!, c.holm[i], relative: 1e-14, absolute: 1e-300), "\(c)")
            }
        }
        #expect(try MultipleTesting.holm([nil, nil] as [Double?]) == [nil, nil])
    }

    // The statistic is a sum of squares (1e-12 relative); the p-value is the chi-square tail,
    // good to 1e-12, magnified in the far tail by the statistic's error times ~χ²/2: 1e-9.
    @Test func srmMatchesScipy() throws {
        let cases = try loadCases("srm", as: SRMCase.self)
        #expect(cases.count >= 200)
        for c in cases {
            let srm = try SampleRatioMismatch(counts: c.counts, weights: c.weights)
            #expect(isClose(srm.statistic, c.statistic, relative: 1e-11, absolute: 1e-12), "\(c)")
            #expect(isClose(srm.pValue, c.p_value, relative: 1e-9, absolute: 1e-300), "\(c) p = \(srm.pValue)")
            #expect(srm.flagged == (c.p_value < 0.001))
            #expect(srm.degreesOfFreedom == c.counts.count - 1)
        }
    }

    @Test func srmDefinedForNoUsers() throws {
        let srm = try SampleRatioMismatch(counts: [0, 0], weights: [1, 1])
        #expect(srm.pValue == 1 && !srm.flagged && srm.statistic == 0)
    }
}
