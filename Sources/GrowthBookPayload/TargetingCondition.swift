import ExperimentDefinitions

/// An experiment's `targeting` and `condition` as one GrowthBook condition, written
/// so that GrowthBook's SDKs evaluate it exactly as abctl's `Targeting.matches` does.
///
/// - `platform`, `country`, `language`: abctl accepts a string equal to a listed value
///   ignoring ASCII case only. `$ini` lowercases with Unicode rules (the Kelvin sign `K`
///   matches `k`), and `$regexi` is Python's and ICU's Unicode folding too, so each value is a
///   regular expression with `[Gg][Bb]` classes for ASCII letters, anchored at both ends,
///   beside `$type: string` (JavaScript's `RegExp.test` would turn a number into text).
/// - `app_version`: `VersionPattern` (numeric comparison of dotted whole numbers).
/// - `new_users_only: true`: `{"new_user": true}` (strict equality: `1` does not match).
enum TargetingCondition {
    /// nil when the experiment has neither targeting nor a condition.
    static func condition(targeting t: Targeting, own: JSONValue?) -> JSONValue? {
        var parts: [JSONValue] = []
        if let values = t.platform { parts.append(list("platform", values)) }
        if let values = t.country { parts.append(list("country", values)) }
        if let values = t.language { parts.append(list("language", values)) }
        if let version = t.appVersion {
            parts.append(.object([("app_version", .object([("$type", .string("string")),
                                                             ("$regex", .string(VersionPattern.pattern(for: version)))]))]))
        }
        if t.newUsersOnly == true { parts.append(.object([("new_user", .bool(true))])) }
        if let own { parts.append(own) }
        return parts.isEmpty ? nil : .object([("$and", .array(parts))])
    }

    static func list(_ attribute: String, _ values: [String]) -> JSONValue {
        .object([(attribute, .object([("$type", .string("string")), ("$regex", .string(listPattern(values)))]))])
    }

    /// `^(?:[Ii][Oo][Ss]|…)` to the end; no value matches nothing.
    static func listPattern(_ values: [String]) -> String {
        guard !values.isEmpty else { return "(?!)" }
        return "^(?:" + values.map(caseInsensitiveLiteral).joined(separator: "|") + ")" + VersionPattern.end
    }

    /// The text as a pattern matching it ignoring ASCII case only.
    static func caseInsensitiveLiteral(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z":
                let lower = Character(scalar).lowercased(), upper = Character(scalar).uppercased()
                out += "[\(upper)\(lower)]"
            case "\\", "^", "$", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/":
                out += "\\" + String(scalar)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
