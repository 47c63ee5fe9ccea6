import ExperimentDefinitions
import Foundation

/// A small strict JSON reader for fixtures: keeps object key order, tells booleans from numbers.
struct TestJSON {
    enum Failure: Error { case at(Int, String) }
    private let b: [UInt8]
    private var i = 0

    static func parse(_ text: String) throws -> JSONValue {
        var p = TestJSON(b: Array(text.utf8))
        p.ws()
        let v = try p.value()
        p.ws()
        guard p.i == p.b.count else { throw Failure.at(p.i, "trailing text") }
        return v
    }

    static func load(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try parse(String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    private init(b: [UInt8]) { self.b = b }

    private mutating func ws() { while i < b.count, [0x20, 0x0A, 0x0D, 0x09].contains(b[i]) { i += 1 } }

    private mutating func value() throws -> JSONValue {
        guard i < b.count else { throw Failure.at(i, "end of input") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1; ws()
            var pairs: [(String, JSONValue)] = []
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
            while true {
                ws()
                let k = try string()
                ws()
                guard b[i] == UInt8(ascii: ":") else { throw Failure.at(i, "expected :") }
                i += 1; ws()
                pairs.append((k, try value()))
                ws()
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "}") else { throw Failure.at(i, "expected }") }
                i += 1
                return .object(pairs)
            }
        case UInt8(ascii: "["):
            i += 1; ws()
            var items: [JSONValue] = []
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                ws()
                items.append(try value())
                ws()
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "]") else { throw Failure.at(i, "expected ]") }
                i += 1
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): i += 4; return .bool(true)
        case UInt8(ascii: "f"): i += 5; return .bool(false)
        case UInt8(ascii: "n"): i += 4; return .null
        default:
            let start = i
            while i < b.count, "+-0123456789.eE".utf8.contains(b[i]) { i += 1 }
            guard let d = Double(String(decoding: b[start..<i], as: UTF8.self)) else { throw Failure.at(start, "bad number") }
            return .number(d)
        }
    }

    private mutating func string() throws -> String {
        guard b[i] == UInt8(ascii: "\"") else { throw Failure.at(i, "expected string") }
        i += 1
        var units: [UInt16] = []
        var raw: [UInt8] = []
        func flush() { units.append(contentsOf: String(decoding: raw, as: UTF8.self).utf16); raw.removeAll() }
        while b[i] != UInt8(ascii: "\"") {
            if b[i] == UInt8(ascii: "\\") {
                flush()
                i += 1
                let c = b[i]; i += 1
                switch c {
                case UInt8(ascii: "n"): units.append(10)
                case UInt8(ascii: "t"): units.append(9)
                case UInt8(ascii: "r"): units.append(13)
                case UInt8(ascii: "b"): units.append(8)
                case UInt8(ascii: "f"): units.append(12)
                case UInt8(ascii: "u"):
                    guard let u = UInt16(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16) else { throw Failure.at(i, "bad \\u") }
                    units.append(u); i += 4
                default: units.append(UInt16(c))
                }
            } else {
                raw.append(b[i]); i += 1
            }
        }
        flush()
        i += 1
        return String(decoding: units, as: UTF16.self)
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
