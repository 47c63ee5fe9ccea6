import Events
import ExperimentDefinitions

extension SQLiteEventStore {
    /// `AllocationPeriodStore.allocationPeriods`, read by the reader pool.
    public func allocationPeriods(experiment: String?) throws -> [AllocationPeriod] {
        try readers.read { c in
            let s = try c.cached("""
                SELECT experiment, period, from_ts, rule, computed_ts, figures
                FROM allocation_periods WHERE ?1 IS NULL OR experiment = ?1 ORDER BY experiment, period
                """)
            defer { s.finish() }
            try s.bind(1, experiment)
            var periods: [AllocationPeriod] = []
            while try s.step() {
                guard let p = AllocationPeriod(experiment: s.text(0), index: Int(s.int64(1)), from: Timestamp(microseconds: s.int64(2)),
                                               rule: s.text(3), computedAt: Timestamp(microseconds: s.int64(4)), figuresJSON: s.text(5)) else { continue }
                periods.append(p)
            }
            return periods
        }
    }

    /// `AllocationPeriodStore.recordAllocationPeriod`: one INSERT; the primary key keeps a second
    /// record of the same period out.
    public func recordAllocationPeriod(_ period: AllocationPeriod) throws -> Bool {
        try writer.perform(context: "record allocation period") { c in
            let s = try c.cached("""
                INSERT OR IGNORE INTO allocation_periods (experiment, period, from_ts, rule, figures, computed_ts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            defer { s.finish() }
            try s.bind(1, period.experiment)
            try s.bind(2, Int64(period.index))
            try s.bind(3, period.from.microseconds)
            try s.bind(4, period.rule)
            try s.bind(5, period.figuresJSON)
            try s.bind(6, period.computedAt.microseconds)
            try s.run()
            return try c.scalarInt("SELECT changes()") == 1
        }
    }
}
