import CSQLite

/// The database's latest commit and checkpoint, as SQLite's WAL index records them.
///
/// Every commit, from any process, rewrites the WAL-index header (its frame count, change
/// counter and checksums), and a checkpoint advances `nBackfill`: two equal stamps mean nothing
/// was committed or checkpointed in between.
struct WALStamp: Equatable {
    let words: SIMD8<UInt64>
    /// Frames in the WAL (`mxFrame`, the low half of the header's third word).
    var frames: UInt32 { UInt32(truncatingIfNeeded: words[2]) }
}

/// Reads `WALStamp`s from SQLite's own mapping of a database's WAL index (`-shm`): a few loads
/// from shared memory, no lock and no system call.
///
/// The mapping is the connection's (through the VFS, never a second descriptor of `-shm`, whose
/// close would drop SQLite's locks), so the watch holds that connection open for as long as it lives.
/// `@unchecked Sendable`: the mapping is only read, and the connection is never used through the watch.
final class WALIndexWatch: @unchecked Sendable {
    private let base: UnsafeRawPointer
    private let connection: Connection

    /// nil when `connection` has no WAL index mapped (not in WAL mode, or no transaction yet).
    init?(connection: Connection) {
        guard let base = connection.walIndexMapping() else { return nil }
        self.base = base
        self.connection = connection
    }

    /// The current stamp; nil while a commit is being published (treat as "changed").
    func stamp() -> WALStamp? {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
        let stable = withUnsafeMutableBytes(of: &words) { out in
            abctl_wal_index_stamp(base, out.baseAddress!.assumingMemoryBound(to: UInt64.self))
        }
        guard stable != 0 else { return nil }
        return WALStamp(words: SIMD8(words.0, words.1, words.2, words.3, words.4, words.5, words.6, 0))
    }
}
