import ExperimentDefinitions

/// The JavaScript coercions that GrowthBook's condition language inherits from its JS SDK
/// (`value + ""`, `value * 1`, `!!value`, `<` between mixed types, `===`), over `JSONValue`.
/// A missing attribute behaves as `null`, as GrowthBook's `getPath` returns it.
enum JS {
    /// `String(value)`.
    static func toString(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return numberToString(d)
        case .string(let s): return s
        case .array(let items):
            return items.map { item -> String in
                if case .null = item { return "" }
                return toString(item)
            }.joined(separator: ",")
        case .object: return "[object Object]"
        }
    }

    /// `Number.prototype.toString()` (ECMAScript Number::toString): the shortest round-trip
    /// digits (Swift's `description` gives the same digits), laid out in fixed notation for
    /// decimal exponents -6 < n <= 21 and as `1.5e+21` / `1e-7` otherwise.
    static func numberToString(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return "0" }
        if d < 0 { return "-" + numberToString(-d) }
        if d < 9.0e15, d == d.rounded() { return String(Int64(d)) }
        // Digits and exponent from Swift's shortest form ("1.5", "1e-07", "1.2345e+20").
        let text = d.description
        var mantissa = Substring(text), exp = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exp = Int(text[text.index(after: e)...]) ?? 0
        }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0]), fraction = parts.count > 1 ? String(parts[1]) : ""
        let padded = String((whole + fraction).drop { $0 == "0" })
        var digits = padded
        while digits.hasSuffix("0") { digits.removeLast() }
        let k = digits.count
        // The value is 0.d1d2…dk × 10^n.
        let n = exp - fraction.count + padded.count
        if k <= n && n <= 21 { return digits + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 {
            let cut = digits.index(digits.startIndex, offsetBy: n)
            return String(digits[..<cut]) + "." + String(digits[cut...])
        }
        if -6 < n && n <= 0 { return "0." + String(repeating: "0", count: -n) + digits }
        let head = String(digits.prefix(1)), tail = String(digits.dropFirst())
        return head + (tail.isEmpty ? "" : "." + tail) + "e" + (n - 1 >= 0 ? "+" : "-") + String(abs(n - 1))
    }

    /// `Number(value)`; NaN when the value has no numeric reading.
    static func toNumber(_ v: JSONValue) -> Double {
        switch v {
        case .null: return 0
        case .bool(let b): return b ? 1 : 0
        case .number(let d): return d
        case .string(let s): return stringToNumber(s)
        case .array: return stringToNumber(toString(v))
        case .object: return .nan
        }
    }

    static func stringToNumber(_ raw: String) -> Double {
        let s = raw.trimmingJSWhitespace()
        if s.isEmpty { return 0 }
        switch s {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        let lower = s.lowercased()
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where lower.hasPrefix(prefix) {
            guard let n = UInt64(lower.dropFirst(2), radix: radix) else { return .nan }
            return Double(n)
        }
        // Decimal literal: digits, optional fraction, optional exponent; no "inf"/"nan" words.
        guard s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 }),
              let d = Double(s) else { return .nan }
        return d
    }

    /// `!!value`.
    static func truthy(_ v: JSONValue) -> Bool {
        switch v {
        case .null: return false
        case .bool(let b): return b
        case .number(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        case .array, .object: return true
        }
    }

    /// `a === b` between two separately parsed values: containers are never identical.
    static func strictEquals(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        default: return false
        }
    }

    /// `JSON.stringify(a) === JSON.stringify(b)`: same types, same order of object keys.
    static func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.number(x), .number(y)):
            // JSON.stringify writes NaN and ±Infinity as null.
            if !x.isFinite || !y.isFinite { return !x.isFinite && !y.isFinite }
            return x == y
        case (.number(let x), .null), (.null, .number(let x)): return !x.isFinite
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && sameJSON($0.1, $1.1) }
        default: return strictEquals(a, b)
        }
    }

    /// The result of JS's abstract relational comparison `a < b`, `a <= b`, … as an ordering,
    /// or nil when the comparison is undefined (a NaN is involved): every operator is false then.
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        let pa = toPrimitive(a), pb = toPrimitive(b)
        if case .string(let x) = pa, case .string(let y) = pb {
            return compareUTF16(x, y)
        }
        let x = toNumber(pa), y = toNumber(pb)
        if x.isNaN || y.isNaN { return nil }
        return x < y ? -1 : (x > y ? 1 : 0)
    }

    static func toPrimitive(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array, .object: return .string(toString(v))
        default: return v
        }
    }

    /// Orders two strings by UTF-16 code units, as JavaScript does.
    static func compareUTF16(_ a: String, _ b: String) -> Int {
        var ia = a.utf16.makeIterator(), ib = b.utf16.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// GrowthBook's `getType`.
    static func typeName(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension String {
    /// Trims the whitespace JavaScript's `Number(string)` ignores.
    func trimmingJSWhitespace() -> String {
        let ws: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{A0}", "\u{FEFF}", "\u{2028}", "\u{2029}"]
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !ws.contains($0) && !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !ws.contains($0) && !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
