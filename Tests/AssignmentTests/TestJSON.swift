import ExperimentDefinitions
import Foundation

/// Fixtures read with the project's own `JSONReader` (key order kept, booleans told from numbers),
/// so the tests read JSON by the same rules as the code they test.
enum TestJSON {
    static func parse(_ text: String) throws -> JSONValue {
        try JSONReader.parse(text).value
    }

    static func load(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try JSONReader.parse([UInt8](try Data(contentsOf: url))).value
    }
}

extension JSONValue {
    var array: [JSONValue] { if case .array(let a) = self { return a }; return [] }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var number: Double? { if case .number(let d) = self { return d }; return nil }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.last { $0.0 == key }?.1 }
        return nil
    }
    var dictionary: [String: JSONValue] {
        guard case .object(let pairs) = self else { return [:] }
        var d: [String: JSONValue] = [:]
        for (k, v) in pairs { d[k] = v }
        return d
    }
}
