import ExperimentDefinitions

extension Targeting {
    /// Whether a request's attributes satisfy every targeting key.
    ///
    /// A request missing an attribute that a key needs does not match. `platform`, `country`
    /// and `language` accept any listed value, compared without regard to ASCII case (`GB`
    /// matches `gb`); the attribute must be a string. `app_version` must be a string of dotted
    /// whole numbers satisfying the constraint (`VersionConstraint.matches`); `new_users_only`
    /// requires `"new_user": true`.
    public func matches(_ attributes: Attributes) -> Bool { failedAttribute(attributes) == nil }

    /// The attribute whose targeting key `attributes` fail (missing, of the wrong type, or a
    /// value the key does not take): the first of `platform`, `country`, `language`,
    /// `app_version`, `new_user` that fails; nil when every key passes. `/v1/assign` and
    /// `abctl assign` name it as `targeting_attribute` when `reason` is `targeting`.
    public func failedAttribute(_ attributes: Attributes) -> String? {
        if let platform, !Self.listMatches(platform, attributes["platform"]) { return "platform" }
        if let country, !Self.listMatches(country, attributes["country"]) { return "country" }
        if let language, !Self.listMatches(language, attributes["language"]) { return "language" }
        if let appVersion {
            guard case .string(let text)? = attributes["app_version"], Self.versionMatches(appVersion, text) else { return "app_version" }
        }
        if newUsersOnly == true {
            guard case .bool(true)? = attributes["new_user"] else { return "new_user" }
        }
        return nil
    }

    /// `VersionConstraint.matches` without building substrings: the same rules (dot-separated
    /// runs of 1–9 ASCII digits; missing trailing parts are 0), read straight from UTF-8.
    static func versionMatches(_ c: VersionConstraint, _ text: String) -> Bool {
        var order = 0
        var part = 0, digits = 0, index = 0
        var decided = false
        func finish() -> Bool {
            guard digits > 0 else { return false }
            if !decided {
                let b = index < c.version.count ? c.version[index] : 0
                if part != b { order = part < b ? -1 : 1; decided = true }
            }
            index += 1; part = 0; digits = 0
            return true
        }
        for byte in text.utf8 {
            if byte == 0x2E {
                if !finish() { return false }
            } else if byte >= 0x30 && byte <= 0x39 {
                digits += 1
                if digits > 9 { return false }
                part = part * 10 + Int(byte - 0x30)
            } else {
                return false
            }
        }
        if !finish() { return false }
        if !decided {
            // The text ran out first: its missing parts are 0.
            while index < c.version.count {
                if c.version[index] != 0 { order = -1; break }
                index += 1
            }
        }
        switch c.op {
        case .greaterOrEqual: return order >= 0
        case .greater: return order > 0
        case .lessOrEqual: return order <= 0
        case .less: return order < 0
        case .equal: return order == 0
        }
    }

    static func listMatches(_ accepted: [String], _ value: JSONValue?) -> Bool {
        guard case .string(let s)? = value else { return false }
        return accepted.contains { asciiCaseInsensitiveEquals($0, s) }
    }

    static func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] {
                    let p = x[i], q = y[i]
                    let lp = (p >= 0x41 && p <= 0x5A) ? p | 0x20 : p
                    let lq = (q >= 0x41 && q <= 0x5A) ? q | 0x20 : q
                    if lp != lq { return false }
                }
                return true
            }
        }
    }
}
