import ExperimentDefinitions

/// Writes JSON straight into bytes: the hot path of every response and log line.
///
/// Same output as `JSONValue.serialized()` (member order kept, whole numbers without a fraction,
/// NaN and infinities as null, U+2028/U+2029 escaped), without building a `String` scalar by scalar.
enum JSONWriter {
    static func bytes(_ value: JSONValue, reserving capacity: Int = 512) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        write(value, to: &out)
        return out
    }

    static func write<Out: ByteSink & ~Copyable>(_ value: JSONValue, to out: inout Out) {
        switch value {
        case .null: out.append(literal: "null")
        case .bool(let b): out.append(literal: b ? "true" : "false")
        case .number(let n): writeNumber(n, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(item, to: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { out.append(0x2C) }
                writeString(key, to: &out)
                out.append(0x3A)
                write(item, to: &out)
            }
            out.append(0x7D)
        }
    }

    static func writeNumber<Out: ByteSink & ~Copyable>(_ n: Double, to out: inout Out) {
        if n.isFinite, n == n.rounded(), abs(n) < 1e15 {
            writeInteger(Int64(n), to: &out)
            return
        }
        // Buckets (k / 10000, on every assign answer) and prices: a number that is the nearest
        // Double to a decimal with at most four places is written from integer digits. Below
        // 1e11 no shorter decimal rounds to the same Double, so this is the same text as Swift's
        // shortest form (checked value by value in the tests), without formatting a String.
        let tenThousandths = (n * 10_000).rounded()
        if abs(n) >= 0.0001, abs(n) < 1e11, Double(tenThousandths) / 10_000 == n {
            var units = Int64(tenThousandths)
            if units < 0 { out.append(0x2D); units = -units }
            writeInteger(units / 10_000, to: &out)
            // '.' and up to four digits, without trailing zeros, in one append.
            var fraction = units % 10_000
            var length = 5
            while fraction > 0, fraction % 10 == 0 { fraction /= 10; length -= 1 }
            var text: UInt64 = 0
            withUnsafeMutableBytes(of: &text) { buffer in
                buffer[0] = 0x2E
                for at in stride(from: length - 1, to: 0, by: -1) {
                    buffer[at] = UInt8(truncatingIfNeeded: fraction % 10) + 0x30
                    fraction /= 10
                }
                out.append(raw: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
            }
            return
        }
        out.append(bytes: Array(JSONValue.format(n).utf8))
    }

    static func writeInteger<Out: ByteSink & ~Copyable>(_ value: Int64, to out: inout Out) {
        if value == 0 { out.append(0x30); return }
        // Digits from the right into a stack buffer, then one append.
        var v = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: 20 digits and a sign fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            while v > 0 {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
            }
            if value < 0 { start -= 1; buffer[start] = 0x2D }
            out.append(raw: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    static func writeString<Out: ByteSink & ~Copyable>(_ s: String, to out: inout Out) {
        out.append(0x22)
        var s = s
        s.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole; most strings are one run.
            var start = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C && b != 0xE2 {
                    i += 1
                    continue
                }
                let width = escape(bytes, at: i, to: &out, flushing: start)
                if width == 0 {
                    i += 1   // an 0xE2 that does not start U+2028 or U+2029
                } else {
                    i += width
                    start = i
                }
            }
            if n > start { out.append(raw: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<n]))) }
        }
        out.append(0x22)
    }

    /// Writes the escape for the character at `i` (after the unescaped bytes from `start`) and
    /// returns how many bytes it replaced; 0 when the byte needs no escape after all.
    private static func escape<Out: ByteSink & ~Copyable>(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, to out: inout Out, flushing start: Int) -> Int {
        let b = bytes[i]
        var width = 1
        let escape: [UInt8]
        switch b {
        case 0x22: escape = [0x5C, 0x22]
        case 0x5C: escape = [0x5C, 0x5C]
        case 0x0A: escape = [0x5C, 0x6E]
        case 0x0D: escape = [0x5C, 0x72]
        case 0x09: escape = [0x5C, 0x74]
        case 0x00..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            escape = [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
        case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
            escape = Array((bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
            width = 3
        default:
            return 0
        }
        if i > start { out.append(raw: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<i]))) }
        out.append(bytes: escape)
        return width
    }
}
