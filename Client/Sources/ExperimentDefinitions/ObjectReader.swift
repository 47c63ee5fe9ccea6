/// Reads the members of one JSON object, reporting wrong types, unknown keys (with a did-you-mean),
/// missing required keys and duplicate keys to a `DiagnosticSink`.
struct ObjectReader {
    let node: JSONNode
    let members: [String: JSONMember]
    /// Names the object in messages, e.g. "variant 'control' paywall".
    let what: String
    let sink: DiagnosticSink

    /// Nil (after reporting) when `node` is not an object.
    init?(_ node: JSONNode, what: String, allowed: [String], required: [String] = [], sink: DiagnosticSink) {
        guard case .object(let list) = node.kind else {
            sink.error("wrong_type", at: node.position, "\(what) must be an object, not \(node.typeName)", hint: "write it as { … }")
            return nil
        }
        self.node = node
        self.what = what
        self.sink = sink
        var members: [String: JSONMember] = [:]
        for m in list {
            if members[m.key] != nil {
                sink.error("duplicate_key", at: m.keyPosition, "key '\(m.key)' appears twice in \(what)", hint: "keep one of them; JSON readers disagree on which wins")
            }
            members[m.key] = m
            if !allowed.contains(m.key) {
                var hint = "allowed keys: \(allowed.filter { $0 != "$schema" }.joined(separator: ", "))"
                if let guess = Spelling.closest(to: m.key, in: allowed) { hint = "did you mean '\(guess)'?" }
                sink.error("unknown_key", at: m.keyPosition, "unknown key '\(m.key)' in \(what)", hint: hint)
            }
        }
        for key in required where members[key] == nil {
            sink.error("missing_key", at: node.position, "\(what) is missing the required key '\(key)'", hint: "add \"\(key)\": …")
        }
        self.members = members
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    func node(_ key: String) -> JSONNode? { members[key]?.value }

    private func wrongType(_ key: String, _ value: JSONNode, expected: String) {
        sink.error("wrong_type", at: value.position, "'\(key)' in \(what) must be \(expected), not \(value.typeName)")
    }

    func string(_ key: String) -> String? {
        guard let v = node(key) else { return nil }
        guard case .string(let s) = v.kind else { wrongType(key, v, expected: "a string"); return nil }
        return s
    }

    /// A string or an explicit null; `.some(nil)` for null.
    func nullableString(_ key: String) -> String?? {
        guard let v = node(key) else { return nil }
        if case .null = v.kind { return .some(nil) }
        guard case .string(let s) = v.kind else { wrongType(key, v, expected: "a string or null"); return nil }
        return .some(s)
    }

    func number(_ key: String) -> Double? {
        guard let v = node(key) else { return nil }
        guard case .number(let n) = v.kind else { wrongType(key, v, expected: "a number"); return nil }
        return n
    }

    func integer(_ key: String) -> Int? {
        guard let v = node(key) else { return nil }
        guard case .number(let n) = v.kind else { wrongType(key, v, expected: "a whole number"); return nil }
        guard n == n.rounded(), abs(n) < 1e9 else {
            // The type is right; the value is not: name the value, not "number".
            sink.error("wrong_type", at: v.position, "'\(key)' in \(what) must be a whole number, not \(ExperimentDecoder.format(n))")
            return nil
        }
        return Int(n)
    }

    func bool(_ key: String) -> Bool? {
        guard let v = node(key) else { return nil }
        guard case .bool(let b) = v.kind else { wrongType(key, v, expected: "true or false"); return nil }
        return b
    }

    func array(_ key: String) -> [JSONNode]? {
        guard let v = node(key) else { return nil }
        guard case .array(let items) = v.kind else { wrongType(key, v, expected: "an array"); return nil }
        return items
    }

    /// An array of strings; wrong items are reported and skipped.
    func strings(_ key: String) -> [String]? {
        guard let items = array(key) else { return nil }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item.kind else {
                sink.error("wrong_type", at: item.position, "items of '\(key)' in \(what) must be strings, not \(item.typeName)")
                continue
            }
            out.append(s)
        }
        return out
    }

    func position(_ key: String) -> SourcePosition { members[key]?.value.position ?? node.position }
}
