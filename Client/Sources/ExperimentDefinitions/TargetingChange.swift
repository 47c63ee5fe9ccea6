/// Whether an edit of `targeting` or `condition` only adds users: values added to a list
/// and keys removed are pure widenings; anything else may drop users the experiment took.
enum TargetingChange {
    struct Narrowing {
        /// The field as named in messages, e.g. `targeting.country`.
        var field: String
        /// Where it is in the new file.
        var path: [String]
        var reason: String
    }

    static func narrowings(from old: Experiment, to new: Experiment) -> [Narrowing] {
        var out: [Narrowing] = []
        let a = old.targeting, b = new.targeting
        for (key, before, after) in [("platform", a.platform, b.platform), ("country", a.country, b.country), ("language", a.language, b.language)] {
            guard let after else { continue }
            let field = "targeting.\(key)"
            guard let before else {
                out.append(Narrowing(field: field, path: ["targeting", key], reason: "added \(field) (only \(after.joined(separator: ", ")))"))
                continue
            }
            let dropped = before.filter { !after.contains($0) }
            if !dropped.isEmpty {
                out.append(Narrowing(field: field, path: ["targeting", key],
                                     reason: "removed \(dropped.map { "'\($0)'" }.joined(separator: ", ")) from \(field)"))
            }
        }
        if let after = b.appVersion, a.appVersion.map({ !admitsAll(after, of: $0) }) ?? true {
            out.append(Narrowing(field: "targeting.app_version", path: ["targeting", "app_version"],
                                 reason: a.appVersion.map { "changed targeting.app_version from \($0) to \(after), which leaves out versions it took" }
                                     ?? "added targeting.app_version \(after)"))
        }
        if b.newUsersOnly == true && a.newUsersOnly != true {
            out.append(Narrowing(field: "targeting.new_users_only", path: ["targeting", "new_users_only"], reason: "set targeting.new_users_only"))
        }
        if let after = new.condition, !conditionWidens(old.condition, after) {
            out.append(Narrowing(field: "condition", path: ["condition"],
                                 reason: old.condition == nil ? "added a condition" : "changed the condition in a way that is not only values added to an $in list or keys removed"))
        }
        return out
    }

    /// Whether every version `sub` takes is taken by `wider`.
    static func admitsAll(_ wider: VersionConstraint, of sub: VersionConstraint) -> Bool {
        let order = compare(wider.version, sub.version)
        switch (wider.op, sub.op) {
        case (_, .equal): return wider.matches(sub.version.map(String.init).joined(separator: "."))
        case (.greaterOrEqual, .greaterOrEqual), (.greaterOrEqual, .greater), (.greater, .greater): return order <= 0
        case (.greater, .greaterOrEqual): return order < 0
        case (.lessOrEqual, .lessOrEqual), (.lessOrEqual, .less), (.less, .less): return order >= 0
        case (.less, .lessOrEqual): return order > 0
        default: return false
        }
    }

    /// Dotted versions compared with missing parts as 0.
    static func compare(_ a: [Int], _ b: [Int]) -> Int {
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    /// A condition is a conjunction of its top-level keys: dropping keys widens it, and so does adding
    /// values to a key's `$in` list (or to a plain list it compares with); any other edit may narrow it.
    static func conditionWidens(_ old: JSONValue?, _ new: JSONValue) -> Bool {
        guard let old else { return false }
        if RunningChanges.same(old, new) { return true }
        guard case .object(let before) = old, case .object(let after) = new else { return false }
        return after.allSatisfy { key, value in
            guard let previous = before.first(where: { $0.0 == key })?.1 else { return false }
            return RunningChanges.same(previous, value) || listGrows(previous, value)
        }
    }

    private static func listGrows(_ old: JSONValue, _ new: JSONValue) -> Bool {
        func list(_ v: JSONValue) -> [JSONValue]? {
            if case .object(let members) = v, members.count == 1, members[0].0 == "$in", case .array(let items) = members[0].1 { return items }
            return nil
        }
        guard let a = list(old), let b = list(new) else { return false }
        return a.allSatisfy { item in b.contains { RunningChanges.same($0, item) } }
    }
}
