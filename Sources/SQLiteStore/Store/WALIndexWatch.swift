import CSQLite
#if canImport(Glibc)
import Glibc
#endif

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

/// Reads `WALStamp`s from the `-shm` file SQLite maps for a database in WAL mode: a few loads
/// from shared memory, no lock and no system call.
///
/// The file must stay open in SQLite for as long as this lives (it is truncated only by the
/// first process to open the database), so the owner keeps a connection open beside it.
/// `@unchecked Sendable`: the mapping is read-only and never changes after `init`.
final class WALIndexWatch: @unchecked Sendable {
    /// The two header copies (48 bytes each) and the checkpoint information after them.
    private static let mappedBytes = 136
    private let base: UnsafeMutableRawPointer

    /// nil when the database has no WAL index to map (not in WAL mode, or not opened yet).
    init?(databasePath: String) {
        let fd = open(databasePath + "-shm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= Self.mappedBytes else { return nil }
        guard let base = mmap(nil, Self.mappedBytes, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else { return nil }
        self.base = base
    }

    deinit { munmap(base, Self.mappedBytes) }

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
