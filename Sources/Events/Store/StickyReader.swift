import ExperimentDefinitions

/// The sticky record on the assign path: the variant a user was first exposed to.
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

    /// `exposedVariants`, and whether `userID` is one of a person's several ids: its person's
    /// record is then honoured before holdout, targeting and namespace. Only an id with a record
    /// can be told apart, so `linked` is false when every answer is nil.
    func exposedVariantsAndLink(experiments: [String], userID: UserID) throws -> StickyAnswers

    /// `exposedVariantsAndLink` with the answer handed to `completion`, exactly once, on any thread.
    func exposedVariantsAndLink(experiments: [String], userID: UserID,
                                completion: @escaping @Sendable (Result<StickyAnswers, any Error>) -> Void)
}

/// A user's sticky records for some experiments, and whether the user is one of a person's ids.
public struct StickyAnswers: Sendable, Equatable {
    public var variants: [String?]
    public var linked: Bool

    public init(variants: [String?], linked: Bool) {
        self.variants = variants
        self.linked = linked
    }
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

    /// A store that keeps no people: never linked.
    public func exposedVariantsAndLink(experiments: [String], userID: UserID) throws -> StickyAnswers {
        StickyAnswers(variants: try exposedVariants(experiments: experiments, userID: userID), linked: false)
    }

    /// Answers at once, on the caller's thread.
    public func exposedVariantsAndLink(experiments: [String], userID: UserID,
                                       completion: @escaping @Sendable (Result<StickyAnswers, any Error>) -> Void) {
        completion(Result { try exposedVariantsAndLink(experiments: experiments, userID: userID) })
    }
}
