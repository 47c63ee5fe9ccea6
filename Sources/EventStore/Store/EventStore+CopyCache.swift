import Foundation

/// A paywall line the server generated and its guard accepted (SPEC §3), kept by
/// (experiment, variant, brief) so a restart does not ask the model again.
public struct CachedCopyLine: Sendable, Equatable {
    public var line: String
    public var createdAt: Timestamp

    public init(line: String, createdAt: Timestamp) {
        self.line = line
        self.createdAt = createdAt
    }
}

extension EventStore {
    /// The line cached for (experiment, variant, brief), if any.
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

    /// Stores (or replaces) the line for (experiment, variant, brief); returns after the commit.
    public func saveCopyLine(_ line: String, experiment: String, variant: String, brief: String, at time: Timestamp = Timestamp(Date())) throws {
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
