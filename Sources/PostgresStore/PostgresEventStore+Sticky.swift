import Events
import ExperimentDefinitions

/// The sticky record on the assign path, read from the database on every call.
///
/// An exposure another node acknowledged a moment ago must count, so a node-local cache or
/// filter could give a wrong answer: every lookup reads the facts table (indexed by
/// (user_id, experiment)). A request's sticky experiments go in one lookup, and concurrent
/// requests' lookups share queries (`StickyQueryCoalescer`): one round trip answers many.
final class PostgresStickyReader: StickyReader {
    private let coalescer: StickyQueryCoalescer

    /// `maxInFlight` queries run at once (each on its own pooled connection); lookups that
    /// arrive meanwhile join the next one, up to `maxBatch` lookups per query.
    init(pool: ConnectionPool, maxInFlight: Int = 1, maxBatch: Int = 64) {
        // Each lookup's answers end with one more: whether the user is linked (non-nil), which
        // `exposedVariantsAndLink` reads and the other forms drop.
        coalescer = StickyQueryCoalescer(maxInFlight: maxInFlight, maxBatch: maxBatch) { batch in
            try Self.queryWithLinks(batch.map { ($0.userID, $0.experiments) }, pool: pool).map { $0.variants + [$0.linked ? "" : nil] }
        }
    }

    var waitsForRoundTrip: Bool { true }

    func exposedVariant(experiment: String, userID: UserID) throws -> String? {
        try exposedVariants(experiments: [experiment], userID: userID)[0]
    }

    func exposedVariants(experiments: [String], userID: UserID) throws -> [String?] {
        try exposedVariantsAndLink(experiments: experiments, userID: userID).variants
    }

    func exposedVariants(experiments: [String], userID: UserID,
                         completion: @escaping @Sendable (Result<[String?], any Error>) -> Void) {
        if let known = Self.answerWithoutQuery(experiments: experiments, userID: userID) { return completion(.success(known)) }
        coalescer.submit(userID: userID, experiments: experiments) { completion($0.map { Array($0.dropLast()) }) }
    }

    func exposedVariantsAndLink(experiments: [String], userID: UserID) throws -> StickyAnswers {
        if let known = Self.answerWithoutQuery(experiments: experiments, userID: userID) { return StickyAnswers(variants: known, linked: false) }
        return Self.split(try coalescer.lookup(userID: userID, experiments: experiments))
    }

    func exposedVariantsAndLink(experiments: [String], userID: UserID,
                                completion: @escaping @Sendable (Result<StickyAnswers, any Error>) -> Void) {
        if let known = Self.answerWithoutQuery(experiments: experiments, userID: userID) {
            return completion(.success(StickyAnswers(variants: known, linked: false)))
        }
        coalescer.submit(userID: userID, experiments: experiments) { completion($0.map(Self.split)) }
    }

    /// A coalesced answer: the variants, then the linked mark.
    private static func split(_ answer: [String?]) -> StickyAnswers {
        StickyAnswers(variants: Array(answer.dropLast()), linked: answer.last.map { $0 != nil } ?? false)
    }

    /// No experiments, or a user id no record can have (PostgreSQL text cannot hold NUL, and
    /// events refuse it): the answer needs no query.
    private static func answerWithoutQuery(experiments: [String], userID: UserID) -> [String?]? {
        if experiments.isEmpty { return [] }
        if userID.utf8.contains(0) { return experiments.map { _ in nil } }
        return nil
    }

    /// One query for every lookup of `batch`: the facts rows of its users' persons (the
    /// sticky record is the person's) and experiments, of which each lookup keeps the pairs it asked for.
    static func query(_ batch: [(userID: UserID, experiments: [String])], pool: ConnectionPool) throws -> [[String?]] {
        try queryWithLinks(batch, pool: pool).map(\.variants)
    }

    /// The same, with whether each lookup's user is one of a person's several ids (known only
    /// for a user with a record among its experiments; false otherwise).
    static func queryWithLinks(_ batch: [(userID: UserID, experiments: [String])], pool: ConnectionPool) throws -> [StickyAnswers] {
        // Experiment ids are ASCII (the definitions' rule), so String keys tell them apart as the database does.
        var users = Set<UserID>(), experiments = Set<String>()
        for lookup in batch {
            users.insert(lookup.userID)
            for experiment in lookup.experiments where !experiment.utf8.contains(0) { experiments.insert(experiment) }
        }
        var found: [UserID: [String: String]] = [:]
        var linked = Set<UserID>()
        if !experiments.isEmpty {
            try pool.withConnection { c in
                let rows = try c.executePrepared(
                    "sticky", """
                        SELECT u.id, f.experiment, f.variant, p.person_id IS NOT NULL FROM unnest($1::text[]) u(id)
                          LEFT JOIN people p ON p.user_id = u.id
                          JOIN facts f ON f.user_id = coalesce(p.person_id, u.id) AND f.experiment = ANY($2::text[])
                        """,
                    [arrayLiteral(users.lazy.map(\.text)), arrayLiteral(experiments)], context: "sticky lookup")
                for row in 0..<rows.count {
                    let user = UserID(rows.text(row, 0))
                    found[user, default: [:]][rows.text(row, 1)] = rows.text(row, 2)
                    if rows.text(row, 3) == "t" { linked.insert(user) }
                }
            }
        }
        return batch.map { lookup in
            StickyAnswers(variants: lookup.experiments.map { found[lookup.userID]?[$0] }, linked: linked.contains(lookup.userID))
        }
    }
}

extension PostgresEventStore {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    public func exposedVariant(experiment: String, userID: UserID) throws -> String? {
        if userID.utf8.contains(0) || experiment.utf8.contains(0) { return nil }
        return try PostgresStickyReader.query([(userID, [experiment])], pool: readers)[0][0]
    }
}
