import Events
import ExperimentDefinitions

extension PostgresEventStore {
    public func allocationPeriods(experiment: String?) throws -> [AllocationPeriod] {
        try readers.withConnection { c in
            let rows = try c.executePrepared("allocation_periods", """
                SELECT experiment, period, from_ts, rule, computed_ts, figures
                FROM allocation_periods WHERE $1::text IS NULL OR experiment = $1 ORDER BY experiment, period
                """, [experiment], context: "read allocation periods")
            var periods: [AllocationPeriod] = []
            for r in 0..<rows.count {
                guard let p = AllocationPeriod(experiment: rows.text(r, 0), index: Int(rows.int64(r, 1)), from: Timestamp(microseconds: rows.int64(r, 2)),
                                               rule: rows.text(r, 3), computedAt: Timestamp(microseconds: rows.int64(r, 4)),
                                               figuresJSON: rows.text(r, 5)) else { continue }
                periods.append(p)
            }
            return periods
        }
    }

    /// One INSERT (its own transaction); the primary key keeps a second record of the period out,
    /// whichever node writes it.
    public func recordAllocationPeriod(_ period: AllocationPeriod) throws -> Bool {
        try readers.withConnection { c in
            try c.executePrepared("record_allocation_period", """
                INSERT INTO allocation_periods (experiment, period, from_ts, rule, figures, computed_ts)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (experiment, period) DO NOTHING
                """, [period.experiment, String(period.index), String(period.from.microseconds), period.rule, period.figuresJSON,
                      String(period.computedAt.microseconds)], context: "record allocation period").affectedRows == 1
        }
    }
}
