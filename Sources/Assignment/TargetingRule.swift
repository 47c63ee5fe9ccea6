import ExperimentDefinitions

/// An experiment's `targeting` (SPEC §1), ready to check against a request's attributes.
///
/// Every listed key must match; a request missing an attribute that a key needs is not
/// assigned. `platform`, `country` and `language` accept any listed value, compared without
/// regard to ASCII case (`GB` matches `gb`); `app_version` is a dotted numeric constraint;
/// `new_users_only` requires the attribute `"new_user": true`.
public struct TargetingRule: Sendable, Equatable {
    public var platform: [String]?
    public var country: [String]?
    public var language: [String]?
    public var appVersion: AppVersionConstraint?
    public var newUsersOnly: Bool

    public init(platform: [String]? = nil, country: [String]? = nil, language: [String]? = nil,
                appVersion: AppVersionConstraint? = nil, newUsersOnly: Bool = false) {
        self.platform = platform
        self.country = country
        self.language = language
        self.appVersion = appVersion
        self.newUsersOnly = newUsersOnly
    }

    /// True when nothing is targeted (every request matches).
    public var isEmpty: Bool {
        platform == nil && country == nil && language == nil && appVersion == nil && !newUsersOnly
    }

    /// Whether `attributes` satisfy every targeting key.
    public func matches(_ attributes: [String: JSONValue]) -> Bool {
        if let platform, !Self.listMatches(platform, attributes["platform"]) { return false }
        if let country, !Self.listMatches(country, attributes["country"]) { return false }
        if let language, !Self.listMatches(language, attributes["language"]) { return false }
        if let appVersion {
            guard case .string(let text)? = attributes["app_version"], let v = DottedVersion(text),
                  appVersion.isSatisfied(by: v) else { return false }
        }
        if newUsersOnly {
            guard case .bool(true)? = attributes["new_user"] else { return false }
        }
        return true
    }

    static func listMatches(_ accepted: [String], _ value: JSONValue?) -> Bool {
        guard case .string(let s)? = value else { return false }
        return accepted.contains { asciiCaseInsensitiveEquals($0, s) }
    }

    static func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            let lp = (p >= 0x41 && p <= 0x5A) ? p | 0x20 : p
            let lq = (q >= 0x41 && q <= 0x5A) ? q | 0x20 : q
            if lp != lq { return false }
        }
        return true
    }
}

/// A dotted numeric version such as `2.1.0`; missing trailing parts count as zero, so `2.1`
/// equals `2.1.0`. A leading `v` is allowed; a `-prerelease` or `+build` suffix is ignored.
public struct DottedVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var parts: [Int]

    public init(parts: [Int]) { self.parts = parts }

    /// Parses `1`, `2.1`, `v3.0.12`; nil for anything else (`2.x`, `beta`, ``).
    public init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("v") { s = s.dropFirst() }
        if let cut = s.firstIndex(where: { $0 == "-" || $0 == "+" }) { s = s[..<cut] }
        var parts: [Int] = []
        for piece in s.split(separator: ".", omittingEmptySubsequences: false) {
            guard !piece.isEmpty, piece.utf8.count <= 9, piece.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let n = Int(piece) else { return nil }
            parts.append(n)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
    }

    public static func < (a: DottedVersion, b: DottedVersion) -> Bool {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0
            let y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: DottedVersion, b: DottedVersion) -> Bool { !(a < b) && !(b < a) }

    public var description: String { parts.map(String.init).joined(separator: ".") }
}

/// `app_version` targeting: `>=2.1.0`, `>2`, `<=3.0`, `<3`, `==2.4.1`.
public struct AppVersionConstraint: Sendable, Equatable, CustomStringConvertible {
    public enum Comparison: String, Sendable, CaseIterable { case gte = ">=", gt = ">", lte = "<=", lt = "<", eq = "==" }
    public var comparison: Comparison
    public var version: DottedVersion

    public init(_ comparison: Comparison, _ version: DottedVersion) {
        self.comparison = comparison
        self.version = version
    }

    /// Parses `>=2.1.0` (spaces allowed after the operator); nil when malformed.
    public init?(_ text: String) {
        let trimmed = text.trimmingJSWhitespace()
        // Two-character operators first, so `>=` is not read as `>`.
        for c in [Comparison.gte, .lte, .eq, .gt, .lt] where trimmed.hasPrefix(c.rawValue) {
            guard let v = DottedVersion(String(trimmed.dropFirst(c.rawValue.count)).trimmingJSWhitespace()) else { return nil }
            self.init(c, v)
            return
        }
        return nil
    }

    public func isSatisfied(by v: DottedVersion) -> Bool {
        switch comparison {
        case .gte: return v >= version
        case .gt: return v > version
        case .lte: return v <= version
        case .lt: return v < version
        case .eq: return v == version
        }
    }

    public var description: String { comparison.rawValue + version.description }
}
