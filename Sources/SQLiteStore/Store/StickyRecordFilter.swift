import ExperimentDefinitions
import Synchronization

/// Which (experiment, user) pairs may have a sticky record, so the assign path skips the read
/// for a user the store has never seen in that experiment.
///
/// A Bloom filter over the pairs of the `facts` table (one row per exposed user and experiment):
/// "no" is certain, "maybe" is wrong about 1% of the time and then costs one read. It is exact
/// only together with the stamp of the WAL index it was published at: the writer adds every
/// exposure's pair before its transaction commits and publishes the stamp after, and a reader
/// trusts "no" only while the WAL index still shows that stamp, so any commit the writer has
/// not published (another process's `abctl ingest`, or the writer's own commit a moment before
/// it publishes) makes readers read the store instead. When another connection has committed,
/// the writer builds a new filter from `facts` inside a write transaction.
///
/// Layers of doubling size keep the false "maybe"s near 1% as the store grows, without reading
/// the store again; a reader takes the layers and the stamp together under a lock and probes
/// the bits (atomic words) without it.
final class StickyRecordFilter: Sendable {
    /// One Bloom filter of fixed size; bits are only ever set.
    final class Layer: @unchecked Sendable {
        private let words: UnsafeMutablePointer<Atomic<UInt64>>
        private let wordCount: Int
        private let bitCount: UInt64
        let capacity: Int
        /// Pairs added (with repeats), on the writer's queue only.
        var added = 0
        static let probes = 7

        /// About ten bits per pair: a false "maybe" about 1% of the time at capacity.
        init(capacity: Int) {
            self.capacity = capacity
            wordCount = (capacity * 10 + 63) / 64
            bitCount = UInt64(wordCount) * 64
            words = .allocate(capacity: wordCount)
            for i in 0..<wordCount { (words + i).initialize(to: Atomic(0)) }
        }

        deinit {
            words.deinitialize(count: wordCount)
            words.deallocate()
        }

        func insert(_ hash: PairHash) {
            var h = hash.first
            for _ in 0..<Self.probes {
                let bit = h % bitCount
                words[Int(bit >> 6)].bitwiseOr(1 << (bit & 63), ordering: .relaxed)
                h &+= hash.step
            }
        }

        func mightContain(_ hash: PairHash) -> Bool {
            var h = hash.first
            for _ in 0..<Self.probes {
                let bit = h % bitCount
                if words[Int(bit >> 6)].load(ordering: .relaxed) & (1 << (bit & 63)) == 0 { return false }
                h &+= hash.step
            }
            return true
        }
    }

    /// Two hashes of one pair for double hashing.
    struct PairHash {
        let first: UInt64
        let step: UInt64

        /// FNV-1a (64-bit) over the experiment's UTF-8, a 0xFF byte (never in UTF-8, so no two
        /// pairs give the same bytes) and the user id's, then SplitMix64's finaliser twice.
        init(experiment: String, userID: UserID) {
            var e = experiment, u = userID.text
            self = e.withUTF8 { experiment in u.withUTF8 { user in PairHash(experiment: experiment, user: user) } }
        }

        /// The same from the UTF-8 bytes (a row of `facts`, read without making strings).
        init(experiment: UnsafeBufferPointer<UInt8>, user: UnsafeBufferPointer<UInt8>) {
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for b in experiment { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0xFF) &* 0x0000_0100_0000_01B3
            for b in user { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            first = Self.mix(h)
            step = Self.mix(first ^ 0x9E37_79B9_7F4A_7C15) | 1
        }

        private static func mix(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What a reader takes: the layers, and the WAL-index stamp they are exact at (nil: not now).
    struct View: Sendable {
        let layers: [Layer]
        let exactAt: WALStamp?

        func mightContain(_ hash: PairHash) -> Bool {
            for layer in layers where layer.mightContain(hash) { return true }
            return false
        }
    }

    private let state = Mutex(View(layers: [], exactAt: nil))
    /// The smallest first layer (pairs).
    static let minimumCapacity = 1 << 16

    /// The layers and the stamp, taken together.
    var view: View { state.withLock { $0 } }

    // MARK: Writer side (the writer's queue only)

    /// Starts over with an empty filter sized for `pairs` pairs, exact nowhere until published.
    func reset(expecting pairs: Int) {
        let layer = Layer(capacity: max(Self.minimumCapacity, pairs * 2))
        state.withLock { $0 = View(layers: [layer], exactAt: nil) }
    }

    /// Adds a pair (before the transaction storing it commits); a full layer gets a larger one after it.
    func insert(experiment: String, userID: UserID) {
        insert(PairHash(experiment: experiment, userID: userID))
    }

    func insert(_ hash: PairHash) {
        let layers = state.withLock { $0.layers }
        guard var last = layers.last else { return }   // never built: nothing is trusted yet
        if last.added >= last.capacity {
            last = Layer(capacity: last.capacity * 2)
            state.withLock { $0 = View(layers: $0.layers + [last], exactAt: $0.exactAt) }
        }
        last.added += 1
        last.insert(hash)
    }

    /// Readers may trust the filter while the WAL index shows `stamp` (nil: no longer).
    func publish(_ stamp: WALStamp?) {
        state.withLock { $0 = View(layers: $0.layers, exactAt: stamp) }
    }

    var isBuilt: Bool { state.withLock { !$0.layers.isEmpty } }
}
