import ExperimentDefinitions

extension Targeting {
    /// Whether a request's attributes satisfy every targeting key (SPEC §1).
    ///
    /// A request missing an attribute that a key needs does not match. `platform`, `country`
    /// and `language` accept any listed value, compared without regard to ASCII case (`GB`
    /// matches `gb`); the attribute must be a string. `app_version` must be a string of dotted
    /// whole numbers satisfying the constraint (`VersionConstraint.matches`); `new_users_only`
    /// requires `"new_user": true`.
    public func matches(_ attributes: [String: JSONValue]) -> Bool {
        if let platform, !Self.listMatches(platform, attributes["platform"]) { return false }
        if let country, !Self.listMatches(country, attributes["country"]) { return false }
        if let language, !Self.listMatches(language, attributes["language"]) { return false }
        if let appVersion {
            guard case .string(let text)? = attributes["app_version"], appVersion.matches(text) else { return false }
        }
        if newUsersOnly == true {
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
