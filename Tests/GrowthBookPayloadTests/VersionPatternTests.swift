import ExperimentDefinitions
import Foundation
import Testing
@testable import GrowthBookPayload

/// The `app_version` pattern accepts exactly what `VersionConstraint.matches` accepts. ICU
/// evaluates it here; the end-to-end test evaluates it with Python's `re` inside GrowthBook's SDK.
@Suite struct VersionPatternTests {
    static let constraints = [">=2.1.0", ">2.1", "<=0", "<10.0.1", "==1.0", ">=0.0.0", "<1", ">99999", "<=123456789.5", "==007.2", ">0.0.1", "<2.0.0.1"]

    static func matches(_ pattern: String, _ text: String) -> Bool {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Versions near each constraint's parts: equal, one off, extra or missing parts, zeros, padding.
    static func candidates(near version: [Int]) -> [String] {
        var out: Set<String> = ["", "1..2", ".1", "1.", "v1.2.3", "1.2.3-beta", "٣.1", "1.2.3\n", " 1.2", "1234567890", "0", "00", "0.0.0.0", "000000001.1"]
        var rng = SplitMix(seed: UInt64(version.reduce(7) { $0 &* 31 &+ $1 }))
        for _ in 0..<400 {
            var parts: [String] = []
            let count = Int.random(in: 1...(version.count + 2), using: &rng)
            for i in 0..<count {
                let base = i < version.count ? version[i] : 0
                var n = max(0, base + Int.random(in: -1...1, using: &rng))
                if Int.random(in: 0..<10, using: &rng) == 0 { n = Int.random(in: 0...999_999_999, using: &rng) }
                var text = String(n)
                if Int.random(in: 0..<6, using: &rng) == 0 { text = String(repeating: "0", count: Int.random(in: 1...3, using: &rng)) + text }
                parts.append(String(text.suffix(9)))
            }
            out.insert(parts.joined(separator: "."))
        }
        return out.sorted()
    }

    @Test(arguments: constraints)
    func agreesWithTargeting(_ text: String) throws {
        let constraint = try #require(VersionConstraint(text))
        let pattern = VersionPattern.pattern(for: constraint)
        for candidate in Self.candidates(near: constraint.version) {
            #expect(Self.matches(pattern, candidate) == constraint.matches(candidate), "\(text) on '\(candidate)'")
        }
    }

    @Test func numberPatterns() {
        for x in [0, 1, 9, 10, 19, 20, 99, 100, 305, 999] {
            for y in 0...1200 {
                for text in [String(y), "00" + String(y)] {
                    #expect(Self.matches("^" + VersionPattern.equalNumber(x) + "$", text) == (y == x))
                    #expect(Self.matches("^" + VersionPattern.greaterNumber(x) + "$", text) == (y > x))
                    #expect(Self.matches("^" + (VersionPattern.lessNumber(x) ?? "(?!)") + "$", text) == (y < x))
                }
            }
        }
    }

    @Test func listPatternIgnoresASCIICaseOnly() {
        let pattern = TargetingCondition.listPattern(["GB", "us", "pt-BR", "a.b", "kö"])
        for (text, expected) in [("gb", true), ("Gb", true), ("US", true), ("PT-br", true), ("a.b", true), ("axb", false),
                                 ("KÖ", false), ("kö", true), ("Kö", true), ("\u{212A}ö", false), ("gbx", false), ("xgb", false), ("gb\n", false), ("", false)] {
            #expect(Self.matches(pattern, text) == expected, "'\(text)'")
        }
        #expect(!Self.matches(TargetingCondition.listPattern([]), ""))
    }
}

/// A seeded generator, so a failure names candidates that come back on the next run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
