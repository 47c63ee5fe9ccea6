import ExperimentDefinitions

/// The sticky record of SPEC §2 on the assign path: the variant a user was first exposed to.
///
/// Called on every assign request for its sticky experiments, so implementations keep their
/// connections between calls. An exposure acknowledged by the store is seen by the next call.
public protocol StickyReader: Sendable {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    func exposedVariant(experiment: String, userID: UserID) throws -> String?

    /// The same for several experiments at once: answer i belongs to `experiments[i]`.
    /// A store whose lookups cost a round trip answers them all in one.
    func exposedVariants(experiments: [String], userID: UserID) throws -> [String?]

    /// True when a lookup waits for a round trip to a server: the caller then uses the
    /// completion form and holds no thread meanwhile.
    var waitsForRoundTrip: Bool { get }

    /// `exposedVariants` with the answer handed to `completion`, exactly once, on any thread.
    func exposedVariants(experiments: [String], userID: UserID,
                         completion: @escaping @Sendable (Result<[String?], any Error>) -> Void)
}

extension StickyReader {
    /// One lookup per experiment: right for a store whose lookups are in-process reads.
    public func exposedVariants(experiments: [String], userID: UserID) throws -> [String?] {
        try experiments.map { try exposedVariant(experiment: $0, userID: userID) }
    }

    public var waitsForRoundTrip: Bool { false }

    /// Answers at once, on the caller's thread.
    public func exposedVariants(experiments: [String], userID: UserID,
                                completion: @escaping @Sendable (Result<[String?], any Error>) -> Void) {
        completion(Result { try exposedVariants(experiments: experiments, userID: userID) })
    }
}
