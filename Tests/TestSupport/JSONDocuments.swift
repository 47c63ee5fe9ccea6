import ExperimentDefinitions

/// Random JSON documents for differential tests of the JSON readers: values written with random
/// spacing and, per scalar, a literal or a `\u` escape; and random edits of them with bytes that
/// matter to JSON (quotes, escapes, surrogate halves, brackets, invalid UTF-8).
public enum JSONDocuments {
    public static func document(_ rng: inout SeededGenerator) -> [UInt8] {
        Array(write(value(depth: 0, &rng), &rng).utf8)
    }

    /// `document` with one to three bytes deleted, inserted or replaced.
    public static func edited(_ document: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var edited = document
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let at = Int.random(in: 0...edited.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0 where at < edited.count: edited.remove(at: at)
            case 1: edited.insert(noise.randomElement(using: &rng)!, at: at)
            default: if at < edited.count { edited[at] = noise.randomElement(using: &rng)! }
            }
        }
        return edited
    }

    /// `levels` nested arrays.
    public static func nested(_ levels: Int) -> [UInt8] {
        Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
    }

    static let noise: [UInt8] = Array(#""\u{}[],:-.eE0189dDaAfF \n"#.utf8) + [0xFF, 0xC3, 0xA9, 0xED, 0xA0, 0xF0, 0x9F, 0x90, 0xA6, 0x00, 0x7F]

    static func value(depth: Int, _ rng: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(number(&rng))
        case 3: return .string(string(&rng))
        case 4, 5: return .object((0..<Int.random(in: 0...4, using: &rng)).map { _ in (string(&rng), value(depth: depth + 1, &rng)) })
        default: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(depth: depth + 1, &rng) })
        }
    }

    static func number(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: Double(Int.random(in: -1000...1000, using: &rng))
        case 1: Double.random(in: -1...1, using: &rng)
        case 2: Double.random(in: 1...1e300, using: &rng)
        default: 0
        }
    }

    static func string(_ rng: inout SeededGenerator) -> String {
        let pieces: [String] = ["a", "id", "é", "🐦", "\"", "\\", "/", "\n", "\t", "\u{08}", "\u{1F}", " ", "user_42", "中"]
        return (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    static func write(_ value: JSONValue, _ rng: inout SeededGenerator) -> String {
        let space = [" ", "", "\n", "\t", "\r\n"].randomElement(using: &rng)!
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
        case .string(let s): return quote(s, &rng)
        case .array(let items): return "[" + space + items.map { write($0, &rng) }.joined(separator: "," + space) + "]"
        case .object(let members):
            return "{" + space + members.map { quote($0.0, &rng) + space + ":" + write($0.1, &rng) }.joined(separator: "," + space) + space + "}"
        }
    }

    static func quote(_ s: String, _ rng: inout SeededGenerator) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            let escape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\" || Bool.random(using: &rng)
            if !escape { out.unicodeScalars.append(scalar); continue }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
