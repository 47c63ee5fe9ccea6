extension PostgresStore {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    ///
    /// Always asks the database (one indexed read on the facts key, a prepared statement on a
    /// pooled connection): an exposure another node acknowledged a moment ago must count, so a
    /// node-local cache or filter could give a wrong answer. The cost is one round trip per
    /// sticky experiment of an assign call.
    public func exposedVariant(experiment: String, userID: String) throws -> String? {
        try readers.withConnection { c in
            let rows = try c.executePrepared("sticky", "SELECT variant FROM facts WHERE user_id = $1 AND experiment = $2",
                                             [userID, experiment], context: "sticky lookup")
            return rows.count > 0 ? rows.text(0, 0) : nil
        }
    }
}
