import ExperimentDefinitions
import Testing
@testable import Assignment

/// Every case of the sections of GrowthBook's cross-SDK file that abctl follows (hashing, bucket
/// ranges, variations, namespaces, equal weights and conditions).
enum Cases {
    static let file: JSONValue = try! TestJSON.load("growthbook-cases.json")
    static func section(_ name: String) -> [JSONValue] { file[name]!.array }
    static let extra: JSONValue = try! TestJSON.load("growthbook-extra-cases.json")
}

struct NamedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var value: JSONValue
    var testDescription: String { name }
}

func named(_ section: String, nameIndex: Int? = 0) -> [NamedCase] {
    Cases.section(section).enumerated().map { i, c in
        NamedCase(name: nameIndex.flatMap { c.array[$0].string } ?? "\(section) #\(i)", value: c)
    }
}

@Suite struct GrowthBookConformance {
    @Test func sectionsArePresent() {
        #expect(Cases.file["specVersion"]?.string == "0.8.0")
        #expect(Cases.section("hash").count == 15)
        #expect(Cases.section("getBucketRange").count == 13)
        #expect(Cases.section("chooseVariation").count == 13)
        #expect(Cases.section("inNamespace").count == 16)
        #expect(Cases.section("getEqualWeights").count == 6)
        #expect(Cases.section("evalCondition").count == 248)
    }

    @Test(arguments: named("hash", nameIndex: nil))
    func hash(_ c: NamedCase) {
        let a = c.value.array
        let got = Bucketing.hash(seed: a[0].string!, value: a[1].string!, version: Int(a[2].number!))
        #expect(got == a[3].number, "\(a)")
    }

    @Test(arguments: named("getBucketRange"))
    func getBucketRange(_ c: NamedCase) {
        let a = c.value.array
        let args = a[1].array
        let weights: [Double]? = args[2] == .null ? nil : args[2].array.map { $0.number! }
        let got = Bucketing.bucketRanges(numVariations: Int(args[0].number!), coverage: args[1].number!, weights: weights)
        let want = a[2].array.map { ($0.array[0].number!, $0.array[1].number!) }
        #expect(got.count == want.count)
        for (g, w) in zip(got, want) {
            #expect(abs(g.lowerBound - w.0) < 1e-6 && abs(g.upperBound - w.1) < 1e-6, "\(got) vs \(want)")
        }
    }

    @Test(arguments: named("chooseVariation"))
    func chooseVariation(_ c: NamedCase) {
        let a = c.value.array
        let ranges = a[2].array.map { $0.array[0].number!..<$0.array[1].number! }
        #expect(Bucketing.chooseVariation(a[1].number!, ranges: ranges) == Int(a[3].number!))
    }

    @Test(arguments: named("inNamespace"))
    func inNamespace(_ c: NamedCase) {
        let a = c.value.array
        let ns = a[2].array
        let got = Bucketing.inNamespace(userID: a[1].string!, namespaceID: ns[0].string!, start: ns[1].number!, end: ns[2].number!)
        #expect(got == a[3].bool!)
    }

    @Test(arguments: named("getEqualWeights", nameIndex: nil))
    func getEqualWeights(_ c: NamedCase) {
        let a = c.value.array
        let got = Bucketing.equalWeights(Int(a[0].number!))
        let want = a[1].array.map { $0.number! }
        #expect(got.count == want.count)
        for (g, w) in zip(got, want) { #expect(abs(g - w) < 1e-8) }
    }

    @Test(arguments: named("evalCondition"))
    func evalCondition(_ c: NamedCase) throws {
        let a = c.value.array
        var groups: [String: [JSONValue]] = [:]
        if a.count > 4 { for (k, v) in a[4].dictionary { groups[k] = v.array } }
        let condition = try Condition(a[1], savedGroups: groups)
        #expect(condition.matches(Attributes(a[2].dictionary)) == a[3].bool!, "\(a[1]) on \(a[2])")
        // The same answer when the attributes are a nested document rather than the top level.
        #expect(condition.matches(document: a[2]) == a[3].bool!)
    }
}
