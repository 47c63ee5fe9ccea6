/// The attributes an exposure carried: what the app sent to assign, so a report can split
/// results by segment and post-stratify. At most `maxKeys` keys; each key and each value at most
/// `maxBytes` bytes of UTF-8 (a number: its JSON text).
///
/// Kept as one compact byte string, in key byte order, the form the stores keep per event and per
/// (experiment, user): a report reads one per user and looks up only the dimensions it splits by,
/// so nothing is decoded for a plain report. Two values are equal when their bytes are.
public struct ExposureAttributes: Sendable, Hashable {
    public static let maxKeys = 32
    public static let maxBytes = 256

    /// One attribute's value: the JSON types an attribute may have.
    public enum Value: Sendable, Hashable {
        case string(String)
        case number(Double)
        case bool(Bool)

        /// The value as a segment is named: the string itself, `true`/`false`, a whole number without
        /// a fraction (`3`, not `3.0`).
        public var label: String {
            switch self {
            case .string(let s): return s
            case .bool(let b): return b ? "true" : "false"
            case .number(let d):
                if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
                return String(d)
            }
        }
    }

    /// The encoded form (see `init(encoded:)`): per key, in ascending byte order of the keys, the key's
    /// length (UInt16, little-endian) and bytes, a tag (0 string, 1 number, 2 false, 3 true), then
    /// for a string its length (UInt16) and bytes, for a number its IEEE 754 bits (UInt64).
    public let encoded: [UInt8]

    /// Reads bytes that `encoded` produced (a store's column); nothing is checked beyond bounds.
    public init(encoded: [UInt8]) { self.encoded = encoded }

    /// From key-value pairs; keys must be distinct (the parser checks the limits and names the field).
    public init(_ pairs: [(key: String, value: Value)]) {
        let sorted = pairs.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sorted.reduce(0) { $0 + $1.key.utf8.count + 12 })
        func length(_ n: Int) { bytes.append(UInt8(n & 0xFF)); bytes.append(UInt8(n >> 8)) }
        for (key, value) in sorted {
            length(key.utf8.count)
            bytes.append(contentsOf: key.utf8)
            switch value {
            case .string(let s):
                bytes.append(0)
                length(s.utf8.count)
                bytes.append(contentsOf: s.utf8)
            case .number(let d):
                bytes.append(1)
                withUnsafeBytes(of: d.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .bool(let b):
                bytes.append(b ? 3 : 2)
            }
        }
        encoded = bytes
    }

    public static let empty = ExposureAttributes(encoded: [])

    public var isEmpty: Bool { encoded.isEmpty }

    /// Every attribute, by key byte order.
    public var pairs: [(key: String, value: Value)] {
        var out: [(key: String, value: Value)] = []
        walk { key, tag, payload in
            out.append((String(decoding: key, as: UTF8.self), Self.value(tag: tag, payload: payload)))
            return false
        }
        return out
    }

    /// The value of `key`, or nil when the exposure did not carry it.
    public subscript(key: String) -> Value? {
        var found: Value?
        var key = key
        key.withUTF8 { wanted in
            walk { candidate, tag, payload in
                guard candidate.elementsEqual(wanted) else { return false }
                found = Self.value(tag: tag, payload: payload)
                return true
            }
        }
        return found
    }

    private static func value(tag: UInt8, payload: UnsafeBufferPointer<UInt8>) -> Value {
        switch tag {
        case 0: return .string(String(decoding: payload, as: UTF8.self))
        case 1:
            var bits: UInt64 = 0
            for k in 0..<min(8, payload.count) { bits |= UInt64(payload[k]) << (8 * UInt64(k)) }
            return .number(Double(bitPattern: bits))
        default: return .bool(tag == 3)
        }
    }

    /// Calls `body` with each key's bytes, its value's tag and payload, until `body` answers true.
    private func walk(_ body: (UnsafeBufferPointer<UInt8>, UInt8, UnsafeBufferPointer<UInt8>) -> Bool) {
        encoded.withUnsafeBufferPointer { b in
            var i = 0
            func length() -> Int? {
                guard i + 2 <= b.count else { return nil }
                defer { i += 2 }
                return Int(b[i]) | Int(b[i + 1]) << 8
            }
            while i < b.count {
                guard let keyLength = length(), i + keyLength < b.count else { return }
                let key = UnsafeBufferPointer(rebasing: b[i..<i + keyLength])
                i += keyLength
                let tag = b[i]
                i += 1
                let payloadLength: Int
                switch tag {
                case 0:
                    guard let n = length() else { return }
                    payloadLength = n
                case 1: payloadLength = 8
                case 2, 3: payloadLength = 0
                default: return
                }
                guard i + payloadLength <= b.count else { return }
                let payload = UnsafeBufferPointer(rebasing: b[i..<i + payloadLength])
                i += payloadLength
                if body(key, tag, payload) { return }
            }
        }
    }
}
