import Foundation
import Synchronization

/// Each experiment file's history (FileHistory), read from git off the request threads and kept
/// per file and content hash, so a page view never runs git: a page shows what is kept and, when
/// nothing is kept for the file as loaded or what is kept is older than `refreshSeconds`, asks
/// for a reading on a thread of low priority (`LowPriorityThreads`), one file at a time.
final class ConsoleFileHistories: Sendable {
    struct Entry: Sendable {
        /// SHA-256 of the file's bytes as loaded, in hex.
        var contentHash: String
        var readAt: Date
        var outcome: FileHistory.Outcome
    }

    let refreshSeconds: Double
    let log: Log
    private let kept = Mutex<[String: Entry]>([:])
    /// The files whose reading is queued or running.
    private let pending = Mutex<Set<String>>([])
    /// One thread: git is read one file at a time; a reading refused beyond the queue's bound is
    /// asked again by the file's next page view.
    private let threads = LowPriorityThreads(name: "abctl.console.history", width: 1, waiting: 64)
    /// How a file's history is read (FileHistory.read; a test may count the readings).
    private let reader: @Sendable (String) -> FileHistory.Outcome

    init(refreshSeconds: Double, log: Log, reader: @escaping @Sendable (String) -> FileHistory.Outcome = FileHistory.read(path:)) {
        self.refreshSeconds = refreshSeconds
        self.log = log
        self.reader = reader
    }

    /// What is kept for `path` with these contents (nil: nothing yet, a reading is under way).
    func history(path: String, contents: [UInt8]) -> Entry? {
        let hash = String(decoding: Digest.sha256Hex(contents), as: UTF8.self)
        let entry = kept.withLock { $0[path] }.flatMap { $0.contentHash == hash ? $0 : nil }
        if entry.map({ Date().timeIntervalSince($0.readAt) >= refreshSeconds }) ?? true { read(path: path, hash: hash) }
        return entry
    }

    private func read(path: String, hash: String) {
        guard pending.withLock({ $0.insert(path).inserted }) else { return }
        let started = threads.run { [self] in
            let outcome = reader(path)
            if case .failed(let why) = outcome {
                log.write(level: .error, "console file history failed", ["file": .string(path), "error": .string(why)])
            }
            kept.withLock { $0[path] = Entry(contentHash: hash, readAt: Date(), outcome: outcome) }
            _ = pending.withLock { $0.remove(path) }
        }
        if !started { _ = pending.withLock { $0.remove(path) } }
    }
}
