import Events

extension PostgresEventStore {
    /// `SafeguardScaleStore.fixSafeguardScale`: read; if none is kept yet, INSERT … ON CONFLICT DO NOTHING
    /// and read again (a statement of its own, so it sees the row of whichever node inserted first).
    public func fixSafeguardScale(_ scale: SafeguardScale) throws -> SafeguardScale {
        try readers.withConnection { c in
            if let kept = try Self.safeguardScale(scale, on: c) { return kept }
            _ = try c.executePrepared("fix_safeguard_scale", """
                INSERT INTO safeguard_scales (experiment, arm, metric, mixing_variance, control_rate, fixed_ts)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (experiment, arm, metric) DO NOTHING
                """, [scale.experiment, scale.arm, scale.metric, String(scale.mixingVariance), String(scale.controlRate),
                      String(scale.fixedAt.microseconds)], context: "fix safeguard scale")
            return try Self.safeguardScale(scale, on: c) ?? scale
        }
    }

    /// The scale kept for `scale`'s (experiment, arm, metric), if any.
    private static func safeguardScale(_ scale: SafeguardScale, on c: Connection) throws -> SafeguardScale? {
        let rows = try c.executePrepared("safeguard_scale", """
            SELECT mixing_variance, control_rate, fixed_ts FROM safeguard_scales WHERE experiment = $1 AND arm = $2 AND metric = $3
            """, [scale.experiment, scale.arm, scale.metric], context: "read safeguard scale")
        guard rows.count > 0 else { return nil }
        return SafeguardScale(experiment: scale.experiment, arm: scale.arm, metric: scale.metric, mixingVariance: rows.double(0, 0),
                              controlRate: rows.double(0, 1), fixedAt: Timestamp(microseconds: rows.int64(0, 2)))
    }
}
