import ExperimentDefinitions

/// The answer for one (user, experiment).
///
/// `reason` says which check decided it (in order: forced, status and dates, targeting,
/// condition, namespace, sticky record, coverage and bucket):
///
/// | reason | variant | in_experiment | meaning |
/// | --- | --- | --- | --- |
/// | `forced` | set | false | the experiment's `forced` map names this user (QA; never counted) |
/// | `holdout` | nil | false | a global holdout holds this user out (the control's paywall, or the placement's default) |
/// | `shipped` | nil | false | status `shipped`: the targeting takes the user, who gets the winner's paywall |
/// | `not_running` | nil | false | status is `draft` or `stopped` |
/// | `outside_dates` | nil | false | now is before `start` or at/after `end` |
/// | `targeting` | nil | false | a `targeting` key failed or its attribute is missing |
/// | `condition` | nil | false | the `condition` did not match the attributes |
/// | `namespace` | nil | false | the user's namespace hash is outside the experiment's range, or the person was exposed to another experiment of the namespace |
/// | `sticky` | set | true | the store already exposed this user to that variant |
/// | `paused` | nil | false | status is `paused` and the user has no sticky record |
/// | `coverage` | nil | false | the bucket falls in no variant's range (coverage < 1) |
/// | `assigned` | set | true | the bucket falls in that variant's range |
/// | `safeguard` | nil | false | the chosen arm is stopped by a safeguard: the control's paywall |
///
/// `bucket` is the user's hash for the experiment (hash version 1 or 2, in [0, 1)); it is
/// computed for every answer, so a reader can see where a user fell even when out.
public struct Assignment: Sendable, Equatable {
    /// The experiment answered for (a reference: building an answer copies no strings).
    public let experiment: AssignableExperiment
    /// Index into the experiment's variants, nil when out.
    public var variantIndex: Int?
    public var inExperiment: Bool
    public var bucket: Double
    public var reason: Reason

    public var experimentID: String { experiment.id }
    /// The variant's key, nil when out.
    public var variantKey: String? { variantIndex.map { experiment.variantKeys[$0] } }
    /// The variant of the loaded model (its paywall), when the experiment came from one.
    public var variant: Variant? { variantIndex.flatMap { experiment.model?.variants[$0] } }
    /// The variant whose paywall this answer shows: the assigned or forced one, the winner when
    /// shipped, the control for a held-out user (the `experiments` form of assign) or a user of
    /// an arm a safeguard stopped; nil: none.
    public var paywallVariantIndex: Int? {
        if let variantIndex { return variantIndex }
        switch reason {
        case .shipped: return experiment.winnerIndex
        case .holdout, .safeguard: return 0
        default: return nil
        }
    }

    public init(experiment: AssignableExperiment, variantIndex: Int?, inExperiment: Bool, bucket: Double, reason: Reason) {
        self.experiment = experiment
        self.variantIndex = variantIndex
        self.inExperiment = inExperiment
        self.bucket = bucket
        self.reason = reason
    }

    /// The full answer for `experiment` from a compact decision.
    public init(experiment: AssignableExperiment, decision d: AssignmentDecision) {
        self.init(experiment: experiment, variantIndex: d.variantIndex, inExperiment: d.inExperiment, bucket: d.bucket, reason: d.reason)
    }

    public static func == (a: Assignment, b: Assignment) -> Bool {
        a.experiment === b.experiment && a.variantIndex == b.variantIndex && a.inExperiment == b.inExperiment
            && a.bucket == b.bucket && a.reason == b.reason
    }

    /// See the table on `Assignment`.
    public enum Reason: String, Sendable, CaseIterable {
        case forced
        case holdout
        case shipped
        case notRunning = "not_running"
        case outsideDates = "outside_dates"
        case targeting
        case condition
        case namespace
        case sticky
        case paused
        case coverage
        case assigned
        case safeguard
    }
}

/// An `Assignment` without its experiment: plain values only, for hot loops
/// (`Assigner.decide(userID:attributes:into:)`); decision i belongs to `experiments[i]`.
public struct AssignmentDecision: Sendable, Equatable {
    /// The variant index, or -1 when out.
    public var variant: Int32
    public var reason: Assignment.Reason
    public var bucket: Double

    public init(variant: Int32, reason: Assignment.Reason, bucket: Double) {
        self.variant = variant
        self.reason = reason
        self.bucket = bucket
    }

    public var variantIndex: Int? { variant < 0 ? nil : Int(variant) }
    /// True for `assigned` and `sticky`; forced users are never counted.
    public var inExperiment: Bool { reason == .assigned || reason == .sticky }
}

/// Where the `Assigner` finds a user's earlier exposure (the event store provides it).
///
/// Consulted only for experiments with `sticky: true` or status `paused`, after targeting,
/// condition and namespace passed; and, when one of those or a global holdout left the user out,
/// for whether the id belongs to a person whose record then decides (the sticky record is the
/// person's: `stickyRecords`). Must be safe to call from many threads. A returned key that names no
/// variant of the experiment is ignored.
public protocol StickyLookup: Sendable {
    /// The variant key this user was exposed to in this experiment, or nil.
    func stickyVariant(experimentID: String, userID: UserID) -> String?

    /// The same for several experiments of one user at once (one request's): answer i belongs
    /// to `experimentIDs[i]`. A store whose lookups cost a round trip answers them in one.
    func stickyVariants(experimentIDs: [String], userID: UserID) -> [String?]

    /// `stickyVariants`, and whether `userID` is one of a person's several ids, whose
    /// answers are then the person's records. A lookup that knows no people answers false.
    func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool)
}

extension StickyLookup {
    public func stickyVariants(experimentIDs: [String], userID: UserID) -> [String?] {
        experimentIDs.map { stickyVariant(experimentID: $0, userID: userID) }
    }

    public func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool) {
        (stickyVariants(experimentIDs: experimentIDs, userID: userID), false)
    }
}

/// A `StickyLookup` from a closure.
public struct StickyLookupClosure: StickyLookup {
    let body: @Sendable (String, UserID) -> String?
    public init(_ body: @escaping @Sendable (_ experimentID: String, _ userID: UserID) -> String?) { self.body = body }
    public func stickyVariant(experimentID: String, userID: UserID) -> String? { body(experimentID, userID) }
}
