extension Connection {
    /// The statement in `slot`, reset for another run; prepared from `sql` into the slot on first
    /// use. For the writer's statements, prepared once each (`cached` would hash their long SQL on
    /// every use, several times per event).
    func prepared(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot {
            try statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        slot = statement
        return statement
    }
}
