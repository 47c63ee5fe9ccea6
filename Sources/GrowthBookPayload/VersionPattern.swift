import ExperimentDefinitions

/// An `app_version` constraint as one regular expression that accepts exactly the versions
/// abctl's targeting accepts (`VersionConstraint.matches`).
///
/// Not GrowthBook's `$vgte`…: those compare padded strings, which disagree with abctl on
/// versions with another number of parts (`2.1` against `2.1.0`), on leading zeros (`02.1`) and
/// on parts over five digits. The pattern compares numerically part by part, missing parts
/// being 0, and is written in the syntax that JavaScript, Python's `re` and ICU read alike:
/// `[0-9]` (Python's `\d` takes other digits too) and `(?![\s\S])` for the end (Python's `$`
/// also matches before a final newline).
enum VersionPattern {
    static let end = #"(?![\s\S])"#
    /// Dot-separated runs of 1 to 9 ASCII digits: the only versions abctl compares.
    static let format = #"(?=[0-9]{1,9}(?:\.[0-9]{1,9})*"# + end + ")"
    private static let anyTail = #"(?:\.[0-9]+)*"#

    private enum Want { case less, equal, greater }

    static func pattern(for constraint: VersionConstraint) -> String {
        let c = constraint.version
        let wants: [Want]
        switch constraint.op {
        case .greaterOrEqual: wants = [.greater, .equal]
        case .greater: wants = [.greater]
        case .lessOrEqual: wants = [.less, .equal]
        case .less: wants = [.less]
        case .equal: wants = [.equal]
        }
        let branches = wants.compactMap { part(0, $0, c) }
        let body = branches.isEmpty ? "(?!)" : "(?:" + branches.joined(separator: "|") + ")"
        return "^" + format + body + end
    }

    /// Versions from part `i` on (part `i` present) that compare to `c[i...]` as `want`.
    private static func part(_ i: Int, _ want: Want, _ c: [Int]) -> String? {
        if i >= c.count {
            // The constraint has run out: its missing parts are 0.
            switch want {
            case .equal: return "0+" + #"(?:\.0+)*"#
            case .greater: return "(?:" + #"0*[1-9][0-9]*"# + anyTail + "|" + #"0+(?:\.0+)*\.0*[1-9][0-9]*"# + anyTail + ")"
            case .less: return nil
            }
        }
        let x = c[i]
        var branches: [String] = []
        switch want {
        case .equal:
            if let rest = tail(i + 1, .equal, c) { branches.append(equalNumber(x) + rest) }
        case .greater:
            branches.append(greaterNumber(x) + anyTail)
            if let rest = tail(i + 1, .greater, c) { branches.append(equalNumber(x) + rest) }
        case .less:
            if let less = lessNumber(x) { branches.append(less + anyTail) }
            if let rest = tail(i + 1, .less, c) { branches.append(equalNumber(x) + rest) }
        }
        return branches.isEmpty ? nil : "(?:" + branches.joined(separator: "|") + ")"
    }

    /// What may follow part `i - 1`: the version may end there (its missing parts are 0), or go on.
    private static func tail(_ i: Int, _ want: Want, _ c: [Int]) -> String? {
        let rest = i < c.count ? Array(c[i...]) : []
        let endingMatches: Bool
        switch want {
        case .equal: endingMatches = rest.allSatisfy { $0 == 0 }
        case .less: endingMatches = rest.contains { $0 > 0 }
        case .greater: endingMatches = false
        }
        var branches: [String] = []
        if endingMatches { branches.append("") }
        if let next = part(i, want, c) { branches.append(#"\."# + next) }
        return branches.isEmpty ? nil : "(?:" + branches.joined(separator: "|") + ")"
    }

    /// Digit runs whose value is `x` (leading zeros allowed).
    static func equalNumber(_ x: Int) -> String {
        x == 0 ? "0+" : "0*" + String(x)
    }

    /// Digit runs whose value is over `x`.
    static func greaterNumber(_ x: Int) -> String {
        let digits = Array(String(x).utf8).map { Int($0 - 48) }
        var branches = ["[1-9][0-9]{\(digits.count),}"]   // more significant digits
        for (i, d) in digits.enumerated() where d < 9 {
            branches.append(prefix(digits, i) + range(d + 1, 9) + rest(digits.count - i - 1))
        }
        return "0*(?:" + branches.joined(separator: "|") + ")"
    }

    /// Digit runs whose value is under `x`; nil for 0.
    static func lessNumber(_ x: Int) -> String? {
        guard x > 0 else { return nil }
        let digits = Array(String(x).utf8).map { Int($0 - 48) }
        var branches = ["0+"]
        if digits.count >= 2 { branches.append("0*[1-9][0-9]{0,\(digits.count - 2)}") }   // fewer significant digits
        for (i, d) in digits.enumerated() {
            let low = i == 0 ? 1 : 0
            if d > low { branches.append("0*" + prefix(digits, i) + range(low, d - 1) + rest(digits.count - i - 1)) }
        }
        return "(?:" + branches.joined(separator: "|") + ")"
    }

    private static func prefix(_ digits: [Int], _ n: Int) -> String { digits.prefix(n).map(String.init).joined() }

    private static func range(_ low: Int, _ high: Int) -> String { low == high ? String(low) : "[\(low)-\(high)]" }

    private static func rest(_ n: Int) -> String { n == 0 ? "" : "[0-9]{\(n)}" }
}
