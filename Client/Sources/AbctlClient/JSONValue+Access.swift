import ExperimentDefinitions

extension JSONValue {
    /// The member `key` of an object (the first, should it repeat); nil for other values.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    var isNull: Bool { self == .null }

    /// Parses JSON text with the project's reader.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONReader.parse(bytes).value
    }
}
