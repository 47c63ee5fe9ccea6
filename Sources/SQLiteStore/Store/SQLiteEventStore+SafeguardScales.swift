import Events

extension SQLiteEventStore {
    /// `SafeguardScaleStore.fixSafeguardScale`: a scale already kept is read by the reader pool (every
    /// look after the first); only the first look writes, INSERT OR IGNORE then read back in the writer.
    public func fixSafeguardScale(_ scale: SafeguardScale) throws -> SafeguardScale {
        if let kept = try readers.read({ try Self.safeguardScale(scale, on: $0) }) { return kept }
        return try writer.perform(context: "fix safeguard scale") { c in
            let s = try c.cached("""
                INSERT OR IGNORE INTO safeguard_scales (experiment, arm, metric, mixing_variance, control_rate, fixed_ts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            defer { s.finish() }
            try s.bind(1, scale.experiment)
            try s.bind(2, scale.arm)
            try s.bind(3, scale.metric)
            try s.bind(4, scale.mixingVariance)
            try s.bind(5, scale.controlRate)
            try s.bind(6, scale.fixedAt.microseconds)
            try s.run()
            return try Self.safeguardScale(scale, on: c) ?? scale
        }
    }

    /// The scale kept for `scale`'s (experiment, arm, metric), if any.
    private static func safeguardScale(_ scale: SafeguardScale, on c: Connection) throws -> SafeguardScale? {
        let s = try c.cached("""
            SELECT mixing_variance, control_rate, fixed_ts FROM safeguard_scales WHERE experiment = ?1 AND arm = ?2 AND metric = ?3
            """)
        defer { s.finish() }
        try s.bind(1, scale.experiment)
        try s.bind(2, scale.arm)
        try s.bind(3, scale.metric)
        guard try s.step() else { return nil }
        return SafeguardScale(experiment: scale.experiment, arm: scale.arm, metric: scale.metric, mixingVariance: s.double(0),
                              controlRate: s.double(1), fixedAt: Timestamp(microseconds: s.int64(2)))
    }
}
