import Events
import Foundation

extension SQLiteEventStore {
    /// `CopyLineStore.cachedCopyLine`, read by the reader pool.
    public func cachedCopyLine(experiment: String, variant: String, brief: String) throws -> CachedCopyLine? {
        try readers.read { c in
            let s = try c.cached("SELECT line, created_ts FROM copy_cache WHERE experiment = ?1 AND variant = ?2 AND brief = ?3")
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, variant)
            try s.bind(3, brief)
            return try s.step() ? CachedCopyLine(line: s.text(0), createdAt: Timestamp(microseconds: s.int64(1))) : nil
        }
    }

    /// `CopyLineStore.saveCopyLine`, in a transaction of its own on the single writer.
    public func saveCopyLine(_ line: String, experiment: String, variant: String, brief: String, at time: Timestamp) throws {
        try writer.perform(context: "save copy line") { c in
            let s = try c.cached("INSERT OR REPLACE INTO copy_cache (experiment, variant, brief, line, created_ts) VALUES (?1, ?2, ?3, ?4, ?5)")
            defer { s.finish() }
            try s.bind(1, experiment)
            try s.bind(2, variant)
            try s.bind(3, brief)
            try s.bind(4, line)
            try s.bind(5, time.microseconds)
            try s.run()
        }
    }
}
