import ExperimentDefinitions

/// The users with at least one exposure, as a Bloom filter: "no" is certain, "maybe" can be
/// wrong (about 1% of the time while under capacity).
///
/// The writer recomputes a touched user's facts from all of the user's events; a user never
/// exposed has no facts, whatever else is stored. Purchases and webhooks arrive for every user
/// of an app, most of whom never see an experiment, so asking the filter first spares those
/// users a read of their events. A wrong "maybe" only costs that read.
struct ExposedUserFilter {
    private var bits: [UInt64]
    private let bitCount: UInt64
    /// Users inserted (with repeats); past `capacity` "maybe" grows more frequent.
    private(set) var inserted = 0
    let capacity: Int
    private static let probes: UInt64 = 7

    /// Sized for `capacity` users at about ten bits each.
    init(capacity: Int) {
        self.capacity = max(capacity, 1 << 16)
        let words = (self.capacity * 10 + 63) / 64
        bits = [UInt64](repeating: 0, count: words)
        bitCount = UInt64(words) * 64
    }

    mutating func insert(_ userID: UserID) {
        inserted += 1
        var (h, step) = Self.hashes(userID)
        bits.withUnsafeMutableBufferPointer { words in
            for _ in 0..<Self.probes {
                let bit = h % bitCount
                words[Int(bit >> 6)] |= 1 << (bit & 63)
                h &+= step
            }
        }
    }

    func mightContain(_ userID: UserID) -> Bool {
        var (h, step) = Self.hashes(userID)
        return bits.withUnsafeBufferPointer { words in
            for _ in 0..<Self.probes {
                let bit = h % bitCount
                if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
                h &+= step
            }
            return true
        }
    }

    /// FNV-1a (64-bit) over the UTF-8 bytes, then two mixes of it for double hashing.
    private static func hashes(_ userID: UserID) -> (UInt64, UInt64) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        var s = userID.text
        s.withUTF8 { bytes in
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
        let a = mix(h)
        return (a, mix(a ^ 0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// SplitMix64's finaliser: spreads FNV's weak low bits over the whole word.
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
