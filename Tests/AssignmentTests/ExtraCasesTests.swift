import ExperimentDefinitions
import Testing
@testable import Assignment

/// Non-ASCII ids and seeds, and bucket-range edges, computed with GrowthBook's Python SDK
/// (`Fixtures/make_extra_cases.py`).
@Suite struct ExtraOracleCases {
    static func section(_ name: String) -> [JSONValue] { Cases.extra[name]!.array }

    @Test func fnvOverUTF16CodeUnits() {
        let cases = Self.section("fnv1a32")
        #expect(cases.count >= 30)
        for c in cases {
            let a = c.array
            let s = a[0].string!
            #expect(FNV1a.hash(s) == UInt32(a[1].number!), "\(s.unicodeScalars.map { String($0.value, radix: 16) })")
            // The UTF-8 fast path and a plain loop over `utf16` agree.
            var h = FNV1a.offsetBasis
            for u in s.utf16 { h = (h ^ UInt32(u)) &* FNV1a.prime }
            #expect(FNV1a.hash(s) == h)
        }
    }

    @Test func hashNonASCII() {
        let cases = Self.section("hash")
        #expect(cases.count >= 400)
        for c in cases {
            let a = c.array
            let got = Bucketing.hash(seed: a[0].string!, value: a[1].string!, version: Int(a[2].number!))
            #expect(got == a[3].number, "seed \(a[0]) value \(a[1]) v\(a[2])")
        }
    }

    @Test func namespacesNonASCII() {
        for c in Self.section("inNamespace") {
            let a = c.array
            let ns = a[1].array
            let got = Bucketing.inNamespace(userID: a[0].string!, namespaceID: ns[0].string!, start: ns[1].number!, end: ns[2].number!)
            #expect(got == a[2].bool!, "\(a)")
        }
    }

    /// The Assigner, with raw weights normalised by their sum, picks the oracle's variant,
    /// including for ids whose hash sits exactly on a range's start or end.
    @Test func assignerMatchesOracleAtEdges() throws {
        let cases = Self.section("assign")
        #expect(cases.count >= 600)
        var edgeHits = 0
        for c in cases {
            let a = c.array
            let weights = a[3].array.map { $0.number! }
            let e = try AssignableExperiment(
                id: "edge", status: .running, seed: a[0].string!, hashVersion: Int(a[2].number!), coverage: a[4].number!,
                variants: weights.enumerated().map { (key: "v\($0.offset)", weight: $0.element) })
            let userID = UserID(a[1].string!)
            let r = Assigner(experiments: [e]).assign(userID: userID)[0]
            let want = Int(a[5].number!)
            #expect(r.variantIndex == (want < 0 ? nil : want), "\(a)")
            #expect(r.reason == (want < 0 ? .coverage : .assigned))
            if e.ranges.contains(where: { $0.lowerBound == r.bucket || $0.upperBound == r.bucket }) { edgeHits += 1 }
        }
        #expect(edgeHits >= 40, "the fixture must exercise exact range edges")
    }
}
