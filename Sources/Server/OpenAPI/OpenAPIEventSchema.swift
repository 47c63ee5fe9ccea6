import Events
import ExperimentDefinitions

/// The `Event` schema of `/openapi.json`, written from the keys' one declaration (`EventField`):
/// every key a line may have, what its value is, and what it means.
enum OpenAPIEventSchema {
    static let json: JSONValue = .object([
        ("type", .string("object")),
        ("required", .array(EventField.allCases.filter { $0.declaration.carriedBy == nil }.map { .string($0.key) })),
        ("properties", .object(EventField.allCases.map { ($0.key, property($0)) })),
        ("allOf", .array(requiredByType)),
    ])

    /// The keys a type requires, as one `if type is T then required` rule per type that has any.
    private static let requiredByType: [JSONValue] = EventType.allCases.compactMap { type in
        let keys = EventField.allCases.filter { $0.isRequired(by: type) }
        guard !keys.isEmpty else { return nil }
        return .object([
            ("if", .object([("properties", .object([("type", .object([("const", .string(type.name))]))])), ("required", .array([.string("type")]))])),
            ("then", .object([("required", .array(keys.map { .string($0.key) }))])),
        ])
    }

    private static func property(_ field: EventField) -> JSONValue {
        let declaration = field.declaration
        var members: [(String, JSONValue)]
        switch declaration.value {
        case .id:
            members = [("type", .string("string")), ("minLength", .number(1))]
        case .eventType:
            members = [("type", .string("string")), ("enum", .array(EventType.allCases.map { .string($0.name) }))]
        case .time(let required):
            members = [("type", required ? .string("string") : types("string")), ("format", .string("date-time"))]
        case .text(let nonEmpty):
            members = [("type", types("string"))] + (nonEmpty ? [("minLength", .number(1))] : [])
        case .choice(let values):
            members = [("type", types("string")), ("enum", .array(values.map(JSONValue.string) + [.null]))]
        case .number:
            members = [("type", types("number"))]
        case .wholeNumber(let max):
            members = [("type", types("integer")), ("minimum", .number(0)), ("maximum", .number(Double(max)))]
        case .attributes:
            members = [("type", types("object")), ("maxProperties", .number(Double(ExposureAttributes.maxKeys))),
                       ("additionalProperties", .object([("type", .array([.string("string"), .string("number"), .string("boolean")]))]))]
        }
        if let about = declaration.about { members.append(("description", .string(about))) }
        return .object(members)
    }

    /// A value of `type`, or null.
    private static func types(_ type: String) -> JSONValue { .array([.string(type), .string("null")]) }
}
