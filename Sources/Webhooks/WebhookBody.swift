import ExperimentDefinitions

/// A webhook body that must be one JSON object: read with the one JSON reader, and refused as
/// `malformed` (400) when it is empty, not JSON, not an object, or repeats a key.
enum WebhookBody {
    static func object(_ body: [UInt8]) throws(WebhookError) -> [(String, JSONValue)] {
        if body.isEmpty { throw WebhookError(.malformed, code: "empty_body", "the request body is empty; send a JSON object") }
        let value: JSONValue
        do { value = try JSONReader.parse(body).value } catch {
            throw WebhookError(.malformed, code: "invalid_json", "the body is not valid JSON: \(error.message) at line \(error.position.line), column \(error.position.column)")
        }
        guard case .object(let members) = value else {
            throw WebhookError(.malformed, code: "invalid_json", "the body must be a JSON object, not \(value.typeName)")
        }
        var seen = Set<String>()
        if let repeated = members.first(where: { !seen.insert($0.0).inserted })?.0 {
            throw WebhookError(.malformed, code: "duplicate_field", "'\(repeated)' appears twice", field: repeated)
        }
        return members
    }

    /// The value of `key` (the last one, as Apple's and RevenueCat's readers keep).
    static func member(_ members: [(String, JSONValue)], _ key: String) -> JSONValue? {
        members.last { $0.0 == key }?.1
    }
}
