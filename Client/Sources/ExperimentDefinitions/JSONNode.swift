/// A JSON value that remembers where it was written, so diagnostics can point at it.
public struct JSONNode: Sendable {
    public indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    public var kind: Kind
    public var position: SourcePosition

    /// The JSON type name used in messages: "object", "array", "string", "number", "boolean", "null".
    public var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The same value without positions.
    public var value: JSONValue {
        switch kind {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(\.value))
        case .object(let members): .object(members.map { ($0.key, $0.value.value) })
        }
    }
}

/// One `"key": value` pair of an object, with the key's own position.
public struct JSONMember: Sendable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: JSONNode
}
