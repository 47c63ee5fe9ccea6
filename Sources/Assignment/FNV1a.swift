/// FNV-1a, 32 bits, over UTF-16 code units (JavaScript's `charCodeAt`), as GrowthBook hashes.
///
/// Streaming: `FNV1a.update(_:with:)` continues a running hash, so `seed + value` is hashed
/// without building the concatenated string. Strings are read through their UTF-8 storage and
/// transcoded on the fly (a scalar above U+FFFF becomes its surrogate pair), so ASCII ids cost
/// one xor and one multiply per byte and nothing is allocated.
public enum FNV1a {
    /// The FNV-1a 32-bit offset basis.
    public static let offsetBasis: UInt32 = 0x811c_9dc5
    /// The FNV 32-bit prime.
    public static let prime: UInt32 = 16_777_619

    /// The hash of `s`'s UTF-16 code units.
    @inlinable
    public static func hash(_ s: String) -> UInt32 {
        update(offsetBasis, with: s)
    }

    /// Continues `state` over the UTF-16 code units of `s`.
    @inlinable @inline(__always)
    public static func update(_ state: UInt32, with s: String) -> UInt32 {
        if let h = s.utf8.withContiguousStorageIfAvailable({ update(state, utf8: $0) }) {
            return h
        }
        var h = state
        for unit in s.utf16 { h = (h ^ UInt32(unit)) &* prime }
        return h
    }

    /// Continues `state` over the UTF-16 code units of well-formed UTF-8 bytes.
    @inlinable @inline(__always)
    public static func update(_ state: UInt32, utf8 bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h = state
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = UInt32(bytes[i])
            if b0 < 0x80 {
                h = (h ^ b0) &* prime
                i &+= 1
                continue
            }
            // Multi-byte sequence: decode one scalar (Swift strings hold valid UTF-8).
            var scalar: UInt32
            if b0 < 0xE0 {
                scalar = ((b0 & 0x1F) << 6) | (UInt32(bytes[i &+ 1]) & 0x3F)
                i &+= 2
            } else if b0 < 0xF0 {
                scalar = ((b0 & 0x0F) << 12) | ((UInt32(bytes[i &+ 1]) & 0x3F) << 6) | (UInt32(bytes[i &+ 2]) & 0x3F)
                i &+= 3
            } else {
                scalar = ((b0 & 0x07) << 18) | ((UInt32(bytes[i &+ 1]) & 0x3F) << 12)
                    | ((UInt32(bytes[i &+ 2]) & 0x3F) << 6) | (UInt32(bytes[i &+ 3]) & 0x3F)
                i &+= 4
            }
            if scalar > 0xFFFF {
                scalar &-= 0x10000
                h = (h ^ (0xD800 | (scalar >> 10))) &* prime
                h = (h ^ (0xDC00 | (scalar & 0x3FF))) &* prime
            } else {
                h = (h ^ scalar) &* prime
            }
        }
        return h
    }

    /// Continues `state` over the decimal digits of `value` (JavaScript's `String(n)` for a
    /// whole number), without formatting a string: the digits are packed four bits each into
    /// one register, least significant first, then hashed most significant first.
    @inlinable @inline(__always)
    public static func update(_ state: UInt32, decimal value: UInt32) -> UInt32 {
        // Two digits per division (r / 10 for r < 100 is (r × 205) >> 11), halving the chain
        // of dependent divisions.
        var v = value
        var packed: UInt64 = 0
        var count: UInt64 = 0
        while v >= 100 {
            let q = v / 100
            let r = v &- q &* 100
            let tens = (r &* 205) >> 11
            packed |= UInt64((tens << 4) | (r &- tens &* 10)) << (count &* 4)
            count &+= 2
            v = q
        }
        if v >= 10 {
            let tens = (v &* 205) >> 11
            packed |= UInt64((tens << 4) | (v &- tens &* 10)) << (count &* 4)
            count &+= 2
        } else {
            packed |= UInt64(v) << (count &* 4)
            count &+= 1
        }
        var h = state
        while count > 0 {
            count &-= 1
            let digit = UInt32(truncatingIfNeeded: (packed >> (count &* 4)) & 0xF)
            h = (h ^ (0x30 | digit)) &* prime
        }
        return h
    }
}
