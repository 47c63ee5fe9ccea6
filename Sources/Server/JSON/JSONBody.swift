import ExperimentDefinitions

/// A request body that must be one JSON object, with typed field access that throws `APIError`
/// (400, naming the field) when a field is missing or has the wrong type.
public struct JSONBody: Sendable {
    public let members: [(String, JSONValue)]

    public init(_ body: [UInt8]) throws(APIError) {
        if body.isEmpty { throw .badRequest("empty_body", "the request body is empty; send a JSON object") }
        let value: JSONValue
        do { value = try BodyParser.parse(body) } catch {
            throw .badRequest("invalid_json", "the body is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let members) = value else {
            throw .badRequest("invalid_json", "the body must be a JSON object, not \(Self.typeName(value))")
        }
        if let key = Self.firstDuplicate(members) {
            throw .badRequest("duplicate_field", "'\(key)' appears twice", field: key)
        }
        self.members = members
    }

    /// The first key that repeats an earlier one. A request has a handful of members, where
    /// comparing pairs beats hashing every key into a set; large objects still get the set.
    static func firstDuplicate(_ members: [(String, JSONValue)]) -> String? {
        if members.count <= 16 {
            for i in members.indices.dropFirst() where members[..<i].contains(where: { $0.0 == members[i].0 }) { return members[i].0 }
            return nil
        }
        var seen = Set<String>()
        return members.first { !seen.insert($0.0).inserted }?.0
    }

    public subscript(_ key: String) -> JSONValue? {
        members.first { $0.0 == key }?.1
    }

    /// Refuses keys outside `allowed` (a misspelt optional field would otherwise be silently ignored).
    /// A list, not a set: comparing a handful of short keys costs less than hashing each.
    public func only(_ allowed: [String]) throws(APIError) {
        for (key, _) in members where !allowed.contains(key) {
            throw .badRequest("unknown_field", "unknown field '\(key)'; expected: \(allowed.sorted().joined(separator: ", "))", field: key)
        }
    }

    public func string(_ key: String) throws(APIError) -> String {
        guard let value = self[key], value != .null else { throw .badRequest("missing_field", "'\(key)' is required", field: key) }
        guard case .string(let s) = value else { throw Self.wrongType(key, "a string", value) }
        guard !s.isEmpty else { throw .badRequest("invalid_field", "'\(key)' must not be empty", field: key) }
        return s
    }

    public func optionalString(_ key: String) throws(APIError) -> String? {
        guard let value = self[key], value != .null else { return nil }
        guard case .string(let s) = value else { throw Self.wrongType(key, "a string", value) }
        return s
    }

    public func optionalBool(_ key: String) throws(APIError) -> Bool? {
        guard let value = self[key], value != .null else { return nil }
        guard case .bool(let b) = value else { throw Self.wrongType(key, "a boolean", value) }
        return b
    }

    /// An optional object, as its members in order (empty when absent or null).
    public func members(_ key: String) throws(APIError) -> [(String, JSONValue)] {
        guard let value = self[key], value != .null else { return [] }
        guard case .object(let members) = value else { throw Self.wrongType(key, "an object", value) }
        return members
    }

    /// Members as a dictionary; a repeated key keeps its last value.
    public static func dictionary(_ members: [(String, JSONValue)]) -> [String: JSONValue] {
        var out = [String: JSONValue](minimumCapacity: members.count)   // no rehashing while it fills
        for (k, v) in members { out[k] = v }
        return out
    }

    public func optionalStringArray(_ key: String) throws(APIError) -> [String]? {
        guard let value = self[key], value != .null else { return nil }
        guard case .array(let items) = value else { throw Self.wrongType(key, "an array of strings", value) }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else { throw Self.wrongType(key, "an array of strings", item) }
            out.append(s)
        }
        return out
    }

    static func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> APIError {
        .badRequest("invalid_field", "'\(key)' must be \(expected), not \(typeName(value))", field: key)
    }

    public static func typeName(_ value: JSONValue) -> String { value.typeName }
}
