/// Who may enter an experiment: every listed key must match the request's attributes.
public struct Targeting: Sendable, Equatable {
    /// The keys a file may use; anything else is a validation error.
    public static let keys = ["platform", "country", "language", "app_version", "new_users_only"]

    public var platform: [String]?
    public var country: [String]?
    public var language: [String]?
    public var appVersion: VersionConstraint?
    /// True matches only requests whose attributes carry `"new_user": true`.
    public var newUsersOnly: Bool?

    public init(platform: [String]? = nil, country: [String]? = nil, language: [String]? = nil, appVersion: VersionConstraint? = nil, newUsersOnly: Bool? = nil) {
        self.platform = platform
        self.country = country
        self.language = language
        self.appVersion = appVersion
        self.newUsersOnly = newUsersOnly
    }

    public var isEmpty: Bool { self == Targeting() }
}

/// `>=2.1.0` and friends: an operator and a dotted numeric version.
public struct VersionConstraint: Sendable, Equatable, CustomStringConvertible {
    public enum Operator: String, Sendable, CaseIterable {
        // Two-character operators first, so parsing tries them before their prefixes.
        case greaterOrEqual = ">=", lessOrEqual = "<=", equal = "==", greater = ">", less = "<"
    }

    public var op: Operator
    public var version: [Int]

    /// Parses `OP VERSION`, e.g. `>=2.1.0`; nil when malformed.
    public init?(_ text: String) {
        let t = text.trimmingSpaces()
        guard let op = Operator.allCases.first(where: { t.hasPrefix($0.rawValue) }),
              let version = Self.parseVersion(String(t.dropFirst(op.rawValue.count)).trimmingSpaces())
        else { return nil }
        self.op = op
        self.version = version
    }

    /// `2.1.0` → [2, 1, 0]; nil unless dot-separated whole numbers.
    public static func parseVersion(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        var out: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 9, p.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(p) else { return nil }
            out.append(n)
        }
        return out
    }

    /// Compares with missing trailing components read as 0 (2.1 == 2.1.0); false for a malformed version.
    public func matches(_ versionText: String) -> Bool {
        guard let v = Self.parseVersion(versionText) else { return false }
        let n = max(v.count, version.count)
        var order = 0
        for i in 0..<n {
            let a = i < v.count ? v[i] : 0, b = i < version.count ? version[i] : 0
            if a != b { order = a < b ? -1 : 1; break }
        }
        switch op {
        case .greaterOrEqual: return order >= 0
        case .greater: return order > 0
        case .lessOrEqual: return order <= 0
        case .less: return order < 0
        case .equal: return order == 0
        }
    }

    public var description: String { op.rawValue + version.map(String.init).joined(separator: ".") }
}
