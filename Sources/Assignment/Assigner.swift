import ExperimentDefinitions
import Foundation

/// Assigns users to variants over an immutable snapshot of experiments.
///
/// A `Sendable` value: share one across threads and call it concurrently; to reload
/// experiments, build a new `Assigner` and swap the reference. Nothing here does I/O except
/// the optional `StickyLookup`. The clock is injected so dates are testable.
public struct Assigner: Sendable {
    /// The experiments in the order answers are returned.
    public let experiments: [AssignableExperiment]
    let indexByID: [String: Int]
    let sticky: (any StickyLookup)?
    let clock: @Sendable () -> Date
    /// Whether any experiment has dates (the clock is read only then).
    let needsClock: Bool

    public init(experiments: [AssignableExperiment], sticky: (any StickyLookup)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.experiments = experiments
        var index: [String: Int] = [:]
        for (i, e) in experiments.enumerated() where index[e.id] == nil { index[e.id] = i }
        self.indexByID = index
        self.sticky = sticky
        self.clock = clock
        self.needsClock = experiments.contains { $0.start != nil || $0.end != nil }
    }

    /// An assigner over a loaded catalog's experiments, in catalog order (answer i belongs to
    /// `catalog.experiments[i]`; `Assignment.variant` gives the variant with its paywall).
    public init(catalog: ExperimentCatalog, sticky: (any StickyLookup)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.init(experiments: try catalog.experiments.map { try AssignableExperiment($0) }, sticky: sticky, clock: clock)
    }

    /// The same snapshot with another sticky lookup (e.g. once a store is open).
    public func withSticky(_ lookup: (any StickyLookup)?) -> Assigner {
        Assigner(experiments: experiments, sticky: lookup, clock: clock)
    }

    /// The position of the experiment with this id in `experiments`, if any.
    public func index(of id: String) -> Int? { indexByID[id] }

    /// The experiment with this id, if any.
    public func experiment(_ id: String) -> AssignableExperiment? { indexByID[id].map { experiments[$0] } }

    /// One answer per experiment, in snapshot order.
    public func assign(userID: UserID, attributes: Attributes = [:]) -> [Assignment] {
        if sticky != nil { return assign(userID: userID, attributes: attributes, experimentsAt: Array(experiments.indices)) }
        var out: [Assignment] = []
        out.reserveCapacity(experiments.count)
        assign(userID: userID, attributes: attributes, into: &out)
        return out
    }

    /// Replaces `results`' contents with one answer per experiment, reusing its storage
    /// (the allocation-free form for hot loops).
    public func assign(userID: UserID, attributes: Attributes = [:], into results: inout [Assignment]) {
        if sticky != nil {
            results = assign(userID: userID, attributes: attributes, experimentsAt: Array(experiments.indices))
            return
        }
        let now = needsClock ? clock() : Date.distantPast
        if results.count == experiments.count {
            // Overwrite in place: no shrinking and regrowing of the buffer per user.
            experiments.withUnsafeBufferPointer { exps in
                results.withUnsafeMutableBufferPointer { out in
                    for i in 0..<exps.count {
                        let e = exps[i]
                        out[i] = Assignment(experiment: e, decision: decide(userID: userID, attributes: attributes, experiment: e, now: now))
                    }
                }
            }
            return
        }
        results.removeAll(keepingCapacity: true)
        for e in experiments {
            results.append(assign(userID: userID, attributes: attributes, experiment: e, now: now))
        }
    }

    /// The answer for one experiment by id; nil when no experiment has that id.
    public func assign(userID: UserID, attributes: Attributes = [:], experimentID: String) -> Assignment? {
        indexByID[experimentID].map { assign(userID: userID, attributes: attributes, experimentAt: $0) }
    }

    /// The answers for `experiments[i]` for each i of `indices`, in that order, with the sticky
    /// records they need read in one `stickyVariants` call (one round trip to a remote store
    /// per request, not one per experiment).
    public func assign(userID: UserID, attributes: Attributes = [:], experimentsAt indices: [Int]) -> [Assignment] {
        let pending = prepare(userID: userID, attributes: attributes, experimentsAt: indices)
        guard let sticky, !pending.stickyExperimentIDs.isEmpty else { return finish(pending, stickyKeys: []) }
        return finish(pending, stickyKeys: sticky.stickyVariants(experimentIDs: pending.stickyExperimentIDs, userID: userID))
    }

    /// The checks before the sticky record for `experiments[i]`, i in `indices`: what they
    /// decided, and which experiments' sticky records the rest needs. `finish` completes it once
    /// the records are read (the server reads them without holding a thread).
    public func prepare(userID: UserID, attributes: Attributes = [:], experimentsAt indices: [Int]) -> PendingAssignments {
        let now = needsClock ? clock() : Date.distantPast
        var pending = PendingAssignments(indices: indices)
        pending.decided.reserveCapacity(indices.count)
        pending.buckets.reserveCapacity(indices.count)
        for (n, i) in indices.enumerated() {
            let e = experiments[i]
            let bucket = e.bucket(userID: userID.text)
            let decision = decideBeforeSticky(userID: userID, attributes: attributes, experiment: e, now: now, bucket: bucket)
            if decision == nil, needsStickyRecord(e) {
                pending.stickyExperimentIDs.append(e.id)
                pending.stickyAt.append(n)
            }
            pending.decided.append(decision)
            pending.buckets.append(bucket)
        }
        return pending
    }

    /// The answers of `pending`, given the sticky records of its `stickyExperimentIDs` in order
    /// (nil: none; fewer keys than ids count as none for the rest).
    public func finish(_ pending: PendingAssignments, stickyKeys: [String?]) -> [Assignment] {
        var keys = [String?](repeating: nil, count: pending.indices.count)
        for (n, key) in zip(pending.stickyAt, stickyKeys) { keys[n] = key }
        return pending.indices.enumerated().map { n, i in
            let e = experiments[i]
            return Assignment(experiment: e, decision: pending.decided[n] ?? decideFromSticky(experiment: e, bucket: pending.buckets[n], stickyKey: keys[n]))
        }
    }

    /// The answer for `experiments[index]`.
    public func assign(userID: UserID, attributes: Attributes = [:], experimentAt index: Int) -> Assignment {
        let e = experiments[index]
        let now = (e.start != nil || e.end != nil) ? clock() : Date.distantPast
        return assign(userID: userID, attributes: attributes, experiment: e, now: now)
    }

    /// The checks of SPEC §2, in order, for one experiment at time `now`.
    public func assign(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date) -> Assignment {
        Assignment(experiment: e, decision: decide(userID: userID, attributes: attributes, experiment: e, now: now))
    }

    /// One decision per experiment (snapshot order) into `decisions`, reusing its storage.
    ///
    /// The same checks as `assign`, answered without a reference to the experiment, so a hot
    /// loop (the CLI's stream, a benchmark) pays no reference counting per answer; decision
    /// i belongs to `experiments[i]`.
    public func decide(userID: UserID, attributes: Attributes = [:], into decisions: inout [AssignmentDecision]) {
        let now = needsClock ? clock() : Date.distantPast
        let n = experiments.count
        if decisions.count != n {
            decisions = [AssignmentDecision](repeating: AssignmentDecision(variant: -1, reason: .coverage, bucket: 0), count: n)
        }
        experiments.withUnsafeBufferPointer { exps in
            decisions.withUnsafeMutableBufferPointer { out in
                for i in 0..<n {
                    out[i] = decide(userID: userID, attributes: attributes, experiment: exps[i], now: now)
                }
            }
        }
    }

    /// The checks of SPEC §2, in order, for one experiment at time `now`.
    @inline(__always)
    public func decide(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date) -> AssignmentDecision {
        let bucket = e.bucket(userID: userID.text)
        if let decision = decideBeforeSticky(userID: userID, attributes: attributes, experiment: e, now: now, bucket: bucket) {
            return decision
        }
        let key = needsStickyRecord(e) ? sticky?.stickyVariant(experimentID: e.id, userID: userID) : nil
        return decideFromSticky(experiment: e, bucket: bucket, stickyKey: key)
    }

    /// Whether the sticky record is consulted for `e` once the checks before it passed.
    @inline(__always)
    func needsStickyRecord(_ e: AssignableExperiment) -> Bool {
        sticky != nil && (e.sticky || e.status == .paused)
    }

    /// The checks before the sticky record (forced, status, dates, targeting, condition,
    /// namespace); nil when all of them passed and the rest decides.
    @inline(__always)
    func decideBeforeSticky(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date,
                            bucket: Double) -> AssignmentDecision? {
        @inline(__always) func out(_ reason: Assignment.Reason) -> AssignmentDecision {
            AssignmentDecision(variant: -1, reason: reason, bucket: bucket)
        }
        if !e.forced.isEmpty, let i = e.forced[userID] {
            return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .forced, bucket: bucket)
        }
        switch e.status {
        case .draft, .stopped: return out(.notRunning)
        case .running, .paused: break
        }
        if let start = e.start, now < start { return out(.outsideDates) }
        if let end = e.end, now >= end { return out(.outsideDates) }
        if e.hasTargeting, !e.targeting.matches(attributes) { return out(.targeting) }
        if let condition = e.condition, !condition.matches(attributes) { return out(.condition) }
        if let ns = e.namespace, !Bucketing.inNamespace(userID: userID.text, namespaceID: ns.id, start: ns.start, end: ns.end) {
            return out(.namespace)
        }
        return nil
    }

    /// The rest of the checks: the sticky record (`stickyKey`, nil when none or not consulted),
    /// a paused experiment, coverage and bucket.
    @inline(__always)
    func decideFromSticky(experiment e: AssignableExperiment, bucket: Double, stickyKey: String?) -> AssignmentDecision {
        if let stickyKey, let i = e.variantKeys.firstIndex(of: stickyKey) {
            return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .sticky, bucket: bucket)
        }
        if e.status == .paused { return AssignmentDecision(variant: -1, reason: .paused, bucket: bucket) }
        return e.ranges.withUnsafeBufferPointer { ranges in
            for i in 0..<ranges.count where ranges[i].lowerBound <= bucket && bucket < ranges[i].upperBound {
                return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .assigned, bucket: bucket)
            }
            return AssignmentDecision(variant: -1, reason: .coverage, bucket: bucket)
        }
    }
}

/// One request's answers up to the sticky step (`Assigner.prepare`), waiting for the sticky
/// records of `stickyExperimentIDs`.
public struct PendingAssignments: Sendable {
    let indices: [Int]
    var decided: [AssignmentDecision?] = []
    var buckets: [Double] = []
    /// The experiments whose sticky record the answers need, in request order.
    public internal(set) var stickyExperimentIDs: [String] = []
    /// Where each of `stickyExperimentIDs` sits in `indices`.
    var stickyAt: [Int] = []

    init(indices: [Int]) { self.indices = indices }
}
