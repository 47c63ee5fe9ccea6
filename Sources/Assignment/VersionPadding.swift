import ExperimentDefinitions

/// GrowthBook's `paddedVersionString`, which makes semantic versions comparable as strings:
/// a leading `v` and any `+build` are dropped; the rest is split on `-` and `.`; a bare
/// three-part version gets a `~` part (so `1.0.0` sorts after `1.0.0-beta`); numeric parts
/// are left-padded with spaces to five characters; the parts are joined with `-`.
enum VersionPadding {
    static func padded(_ v: JSONValue) -> String {
        switch v {
        case .number(let d): return padded(JS.numberToString(d))
        case .string(let s) where !s.isEmpty: return padded(s)
        default: return padded("0")
        }
    }

    static func padded(_ input: String) -> String {
        var s = Substring(input)
        if s.hasPrefix("v") { s = s.dropFirst() }
        if let plus = s.firstIndex(of: "+") { s = s[..<plus] }
        var parts = s.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "." })
        if parts.count == 3 { parts.append("~") }
        return parts.map { part -> String in
            let numeric = !part.isEmpty && part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            if numeric && part.count < 5 { return String(repeating: " ", count: 5 - part.count) + part }
            return String(part)
        }.joined(separator: "-")
    }
}
