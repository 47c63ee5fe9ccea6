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
    /// `sticky != nil`, without copying the existential on every check.
    let hasSticky: Bool
    /// The global holdouts among `experiments`: their `holdout` users are left out of every other experiment.
    public let holdouts: [AssignableExperiment]
    /// The placements (`placements.json`), in file order.
    public let placements: [AssignablePlacement]
    let placementIndexByID: [String: Int]
    /// Per experiment, the other experiments of its namespace a person exposed to keeps out of it
    /// (`NamespaceRivals`); empty for most, which then cost no lookup.
    let rivals: [[String]]

    public init(experiments: [AssignableExperiment], placements: [AssignablePlacement] = [], sticky: (any StickyLookup)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.experiments = experiments
        self.holdouts = experiments.filter(\.isHoldout)
        self.placements = placements
        var placementIndex: [String: Int] = [:]
        for (i, p) in placements.enumerated() where placementIndex[p.id] == nil { placementIndex[p.id] = i }
        self.placementIndexByID = placementIndex
        var index: [String: Int] = [:]
        for (i, e) in experiments.enumerated() where index[e.id] == nil { index[e.id] = i }
        self.indexByID = index
        self.sticky = sticky
        self.hasSticky = sticky != nil
        self.clock = clock
        self.needsClock = experiments.contains { $0.needsClock }
        self.rivals = NamespaceRivals.of(experiments)
    }

    /// An assigner over a loaded catalog's experiments, in catalog order (answer i belongs to
    /// `catalog.experiments[i]`; `Assignment.variant` gives the variant with its paywall).
    public init(catalog: ExperimentCatalog, sticky: (any StickyLookup)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        let experiments = try catalog.experiments.map { try AssignableExperiment($0) }
        var index: [String: Int] = [:]
        for (i, e) in experiments.enumerated() where index[e.id] == nil { index[e.id] = i }
        let placements = try catalog.placements.map { try AssignablePlacement($0, experimentIndex: index) }
        self.init(experiments: experiments, placements: placements, sticky: sticky, clock: clock)
    }

    /// The same snapshot with another sticky lookup (e.g. once a store is open).
    public func withSticky(_ lookup: (any StickyLookup)?) -> Assigner {
        Assigner(experiments: experiments, placements: placements, sticky: lookup, clock: clock)
    }

    /// The placement with this id, if any.
    public func placement(_ id: String) -> AssignablePlacement? { placementIndexByID[id].map { placements[$0] } }

    /// Whether a global holdout holds this user out of the other experiments at `now`: some
    /// holdout takes the user into its `holdout` arm (by hash or `forced`; no sticky record).
    @inline(__always)
    public func isHeldOut(userID: UserID, attributes: Attributes, now: Date) -> Bool {
        if holdouts.isEmpty { return false }
        for h in holdouts where holdoutDecision(userID: userID, attributes: attributes, holdout: h, now: now).variant == 0 { return true }
        return false
    }

    /// The user's arm in each holdout that takes them (`holdouts` of an assign answer), in snapshot order.
    public func holdoutAssignments(userID: UserID, attributes: Attributes = [:], at time: Date? = nil) -> [Assignment] {
        if holdouts.isEmpty { return [] }
        let now = time ?? (needsClock ? clock() : Date.distantPast)
        return holdouts.compactMap { h in
            let d = holdoutDecision(userID: userID, attributes: attributes, holdout: h, now: now)
            return d.variant < 0 ? nil : Assignment(experiment: h, decision: d)
        }
    }

    func holdoutDecision(userID: UserID, attributes: Attributes, holdout h: AssignableExperiment, now: Date) -> AssignmentDecision {
        let bucket = h.bucket(userID: userID.text)
        return decideBeforeSticky(userID: userID, attributes: attributes, experiment: h, now: now, bucket: bucket, heldOut: false)
            ?? decideFromSticky(experiment: h, bucket: bucket, stickyKey: nil, now: now)
    }

    /// The position of the experiment with this id in `experiments`, if any.
    public func index(of id: String) -> Int? { indexByID[id] }

    /// The experiment with this id, if any.
    public func experiment(_ id: String) -> AssignableExperiment? { indexByID[id].map { experiments[$0] } }

    /// One answer per experiment, in snapshot order.
    public func assign(userID: UserID, attributes: Attributes = [:]) -> [Assignment] {
        if hasSticky { return assign(userID: userID, attributes: attributes, experimentsAt: Array(experiments.indices)) }
        var out: [Assignment] = []
        out.reserveCapacity(experiments.count)
        assign(userID: userID, attributes: attributes, into: &out)
        return out
    }

    /// Replaces `results`' contents with one answer per experiment, reusing its storage
    /// (the allocation-free form for hot loops).
    public func assign(userID: UserID, attributes: Attributes = [:], into results: inout [Assignment]) {
        if hasSticky {
            results = assign(userID: userID, attributes: attributes, experimentsAt: Array(experiments.indices))
            return
        }
        let now = needsClock ? clock() : Date.distantPast
        let heldOut = isHeldOut(userID: userID, attributes: attributes, now: now)
        if results.count == experiments.count {
            // Overwrite in place: no shrinking and regrowing of the buffer per user.
            experiments.withUnsafeBufferPointer { exps in
                results.withUnsafeMutableBufferPointer { out in
                    for i in 0..<exps.count {
                        let e = exps[i]
                        out[i] = Assignment(experiment: e, decision: decide(userID: userID, attributes: attributes, experiment: e, now: now, heldOut: heldOut))
                    }
                }
            }
            return
        }
        results.removeAll(keepingCapacity: true)
        for e in experiments {
            results.append(Assignment(experiment: e, decision: decide(userID: userID, attributes: attributes, experiment: e, now: now, heldOut: heldOut)))
        }
    }

    /// The answer for one experiment by id; nil when no experiment has that id.
    public func assign(userID: UserID, attributes: Attributes = [:], experimentID: String) -> Assignment? {
        indexByID[experimentID].map { assign(userID: userID, attributes: attributes, experimentAt: $0) }
    }

    /// The answers for `experiments[i]` for each i of `indices`, in that order, with the sticky
    /// records they need read in one `stickyVariants` call (one round trip to a remote store
    /// per request, not one per experiment).
    ///
    /// The same answers as `prepare` then `finish`, built in place: the in-process server path,
    /// where the intermediate arrays cost more than the checks. One record is read with
    /// `stickyVariant`, several with one `stickyVariants` call.
    public func assign(userID: UserID, attributes: Attributes = [:], experimentsAt indices: [Int], at time: Date? = nil) -> [Assignment] {
        let now = time ?? (needsClock ? clock() : Date.distantPast)
        let heldOut = isHeldOut(userID: userID, attributes: attributes, now: now)
        var answers: [Assignment] = []
        answers.reserveCapacity(indices.count)
        // Answers waiting for their sticky record hold `Self.waiting` until it is read.
        var waiting = 0, firstWaiting = 0
        // Answers a linked id's person's record overrides (the sticky record is the person's), if
        // the id is linked.
        var personChecks: [Int] = []
        // Answers (with their experiment's index) a person exposed to a rival of the namespace keeps out.
        var rivalChecks: [(at: Int, experiment: Int)] = []
        for i in indices {
            let e = experiments[i]
            let bucket = e.bucket(userID: userID.text)
            if let decision = decideBeforeSticky(userID: userID, attributes: attributes, experiment: e, now: now, bucket: bucket, heldOut: heldOut) {
                if Self.personMayOverride(decision.reason) && needsStickyRecord(e) { personChecks.append(answers.count) }
                answers.append(Assignment(experiment: e, decision: decision))
            } else if hasSticky && (e.sticky || e.status == .paused || !rivals[i].isEmpty) {
                if !rivals[i].isEmpty { rivalChecks.append((answers.count, i)) }
                if waiting == 0 { firstWaiting = answers.count }
                waiting += 1
                answers.append(Assignment(experiment: e, variantIndex: nil, inExperiment: false, bucket: bucket, reason: Self.waiting))
            } else {
                answers.append(Assignment(experiment: e, decision: decideFromSticky(experiment: e, bucket: bucket, stickyKey: nil, now: now)))
            }
        }
        guard waiting > 0 || !personChecks.isEmpty, let sticky else { return answers }
        func decided(_ a: Assignment, key: String?) -> Assignment {
            let e = a.experiment
            return Assignment(experiment: e, decision: decideFromSticky(experiment: e, bucket: a.bucket, stickyKey: needsStickyRecord(e) ? key : nil, now: now))
        }
        if !rivalChecks.isEmpty {
            // One lookup for all: the waiting answers' own records, the person checks', then each rival check's rivals.
            let at = answers.indices.filter { answers[$0].reason == Self.waiting && answers[$0].variantIndex == nil }
            var ids = (at + personChecks).map { answers[$0].experiment.id }
            var rivalsFrom: [Int] = []
            for check in rivalChecks {
                rivalsFrom.append(ids.count)
                ids += rivals[check.experiment]
            }
            let records = personChecks.isEmpty ? (variants: sticky.stickyVariants(experimentIDs: ids, userID: userID), linked: false)
                                               : sticky.stickyRecords(experimentIDs: ids, userID: userID)
            func record(_ k: Int) -> String? { k < records.variants.count ? records.variants[k] : nil }
            for (k, n) in at.enumerated() { answers[n] = decided(answers[n], key: record(k)) }
            for (c, check) in rivalChecks.enumerated() {
                let own = record(at.firstIndex(of: check.at)!)
                let exposedToRival = (rivalsFrom[c]..<rivalsFrom[c] + rivals[check.experiment].count).contains { record($0) != nil }
                if own == nil && exposedToRival {
                    answers[check.at] = Assignment(experiment: answers[check.at].experiment, variantIndex: nil, inExperiment: false,
                                                   bucket: answers[check.at].bucket, reason: .namespace)
                }
            }
            guard records.linked else { return answers }
            for (k, n) in personChecks.enumerated() {
                if let d = personDecision(experiment: answers[n].experiment, bucket: answers[n].bucket, key: record(at.count + k)) {
                    answers[n] = Assignment(experiment: answers[n].experiment, decision: d)
                }
            }
            return answers
        }
        if !personChecks.isEmpty {
            // One lookup for both: the records of the answers waiting, then those of the person checks.
            let at = answers.indices.filter { answers[$0].reason == Self.waiting && answers[$0].variantIndex == nil }
            let records = sticky.stickyRecords(experimentIDs: (at + personChecks).map { answers[$0].experiment.id }, userID: userID)
            for (k, n) in at.enumerated() { answers[n] = decided(answers[n], key: k < records.variants.count ? records.variants[k] : nil) }
            guard records.linked else { return answers }
            for (k, n) in personChecks.enumerated() {
                let key = at.count + k < records.variants.count ? records.variants[at.count + k] : nil
                if let d = personDecision(experiment: answers[n].experiment, bucket: answers[n].bucket, key: key) {
                    answers[n] = Assignment(experiment: answers[n].experiment, decision: d)
                }
            }
            return answers
        }
        if waiting == 1 {
            let a = answers[firstWaiting]
            answers[firstWaiting] = decided(a, key: sticky.stickyVariant(experimentID: a.experiment.id, userID: userID))
            return answers
        }
        let at = answers.indices.filter { answers[$0].reason == Self.waiting && answers[$0].variantIndex == nil }
        let keys = sticky.stickyVariants(experimentIDs: at.map { answers[$0].experiment.id }, userID: userID)
        for (k, n) in at.enumerated() { answers[n] = decided(answers[n], key: k < keys.count ? keys[k] : nil) }
        return answers
    }

    /// The placeholder reason of an answer waiting for its sticky record (with no variant, which
    /// no finished `sticky` answer has).
    private static let waiting = Assignment.Reason.sticky

    /// The checks before the sticky record for `experiments[i]`, i in `indices`: what they
    /// decided, and which experiments' sticky records the rest needs. `finish` completes it once
    /// the records are read (the server reads them without holding a thread).
    /// `time`: when the checks are made (the simulator's users arrive in the past); the clock's now when nil.
    public func prepare(userID: UserID, attributes: Attributes = [:], experimentsAt indices: [Int], at time: Date? = nil) -> PendingAssignments {
        let now = time ?? (needsClock ? clock() : Date.distantPast)
        let heldOut = isHeldOut(userID: userID, attributes: attributes, now: now)
        var pending = PendingAssignments(indices: indices, now: now)
        pending.decided.reserveCapacity(indices.count)
        pending.buckets.reserveCapacity(indices.count)
        for (n, i) in indices.enumerated() {
            let e = experiments[i]
            let bucket = e.bucket(userID: userID.text)
            let decision = decideBeforeSticky(userID: userID, attributes: attributes, experiment: e, now: now, bucket: bucket, heldOut: heldOut)
            if decision == nil, needsStickyRecord(e) {
                pending.stickyExperimentIDs.append(e.id)
                pending.stickyAt.append(n)
            } else if let decision, Self.personMayOverride(decision.reason), needsStickyRecord(e) {
                pending.personCheckAt.append(n)
            }
            if decision == nil, hasSticky, !rivals[i].isEmpty { pending.rivalCheckAt.append(n) }
            pending.decided.append(decision)
            pending.buckets.append(bucket)
        }
        // The person checks' experiments go after the records', then each rival check's own
        // experiment and its rivals, in one lookup.
        pending.stickyExperimentIDs += pending.personCheckAt.map { experiments[indices[$0]].id }
        for n in pending.rivalCheckAt {
            let i = indices[n]
            pending.rivalsFrom.append(pending.stickyExperimentIDs.count)
            pending.stickyExperimentIDs.append(experiments[i].id)
            pending.stickyExperimentIDs += rivals[i]
        }
        return pending
    }

    /// The answers of `pending`, given the sticky records of its `stickyExperimentIDs` in order
    /// (nil: none; fewer keys than ids count as none for the rest) and whether the user is one
    /// of a person's several ids (`linked`, needed when `pending.needsLink`).
    public func finish(_ pending: PendingAssignments, stickyKeys: [String?], linked: Bool = false) -> [Assignment] {
        var keys = [String?](repeating: nil, count: pending.indices.count)
        for (n, key) in zip(pending.stickyAt, stickyKeys) { keys[n] = key }
        var decided = pending.decided
        func key(_ k: Int) -> String? { k < stickyKeys.count ? stickyKeys[k] : nil }
        for (c, n) in pending.rivalCheckAt.enumerated() {
            // A person exposed to a rival of the namespace and not to this experiment is kept out of it.
            let from = pending.rivalsFrom[c], rivalCount = rivals[pending.indices[n]].count
            if key(from) == nil && (from + 1...from + rivalCount).contains(where: { key($0) != nil }) {
                decided[n] = AssignmentDecision(variant: -1, reason: .namespace, bucket: pending.buckets[n])
            }
        }
        if linked {
            for (k, n) in pending.personCheckAt.enumerated() {
                let key = pending.stickyAt.count + k < stickyKeys.count ? stickyKeys[pending.stickyAt.count + k] : nil
                if let d = personDecision(experiment: experiments[pending.indices[n]], bucket: pending.buckets[n], key: key) { decided[n] = d }
            }
        }
        return pending.indices.enumerated().map { n, i in
            let e = experiments[i]
            return Assignment(experiment: e, decision: decided[n] ?? decideFromSticky(experiment: e, bucket: pending.buckets[n], stickyKey: keys[n], now: pending.now))
        }
    }

    /// The answer for `experiments[index]`.
    public func assign(userID: UserID, attributes: Attributes = [:], experimentAt index: Int) -> Assignment {
        let e = experiments[index]
        let now = e.needsClock ? clock() : Date.distantPast
        return assign(userID: userID, attributes: attributes, experiment: e, now: now)
    }

    /// The assignment checks, in order, for one experiment at time `now` (`Assignment`'s table).
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
        let heldOut = isHeldOut(userID: userID, attributes: attributes, now: now)
        let n = experiments.count
        if decisions.count != n {
            decisions = [AssignmentDecision](repeating: AssignmentDecision(variant: -1, reason: .coverage, bucket: 0), count: n)
        }
        experiments.withUnsafeBufferPointer { exps in
            decisions.withUnsafeMutableBufferPointer { out in
                for i in 0..<n {
                    out[i] = decide(userID: userID, attributes: attributes, experiment: exps[i], now: now, heldOut: heldOut)
                }
            }
        }
    }

    /// The assignment checks, in order, for one experiment at time `now` (`Assignment`'s table).
    @inline(__always)
    public func decide(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date) -> AssignmentDecision {
        decide(userID: userID, attributes: attributes, experiment: e, now: now, heldOut: isHeldOut(userID: userID, attributes: attributes, now: now))
    }

    /// The same, with whether a holdout holds the user out already known (once per user, not per experiment).
    @inline(__always)
    func decide(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date, heldOut: Bool) -> AssignmentDecision {
        let bucket = e.bucket(userID: userID.text)
        if let decision = decideBeforeSticky(userID: userID, attributes: attributes, experiment: e, now: now, bucket: bucket, heldOut: heldOut) {
            guard Self.personMayOverride(decision.reason), needsStickyRecord(e), let sticky else { return decision }
            let records = sticky.stickyRecords(experimentIDs: [e.id], userID: userID)
            guard records.linked else { return decision }
            return personDecision(experiment: e, bucket: bucket, key: records.variants.first ?? nil) ?? decision
        }
        if hasSticky, e.namespace != nil, let i = indexByID[e.id], !rivals[i].isEmpty, let sticky {
            // The person's record here and in the namespace's rivals, in one lookup.
            let records = sticky.stickyVariants(experimentIDs: [e.id] + rivals[i], userID: userID)
            let own = records.first ?? nil
            if own == nil && records.dropFirst().contains(where: { $0 != nil }) {
                return AssignmentDecision(variant: -1, reason: .namespace, bucket: bucket)
            }
            return decideFromSticky(experiment: e, bucket: bucket, stickyKey: needsStickyRecord(e) ? own : nil, now: now)
        }
        let key = needsStickyRecord(e) ? sticky?.stickyVariant(experimentID: e.id, userID: userID) : nil
        return decideFromSticky(experiment: e, bucket: bucket, stickyKey: key, now: now)
    }

    /// Whether the sticky record is consulted for `e` once the checks before it passed.
    @inline(__always)
    func needsStickyRecord(_ e: AssignableExperiment) -> Bool {
        hasSticky && (e.sticky || e.status == .paused)
    }

    /// The sticky record is the person's: for an id linked to a person with an exposure to the
    /// experiment, the person's arm is read right after forced, status and dates, so a global
    /// holdout, targeting, the condition and the namespace (checked on the id that asks, which
    /// changes at log-in) do not take the paywall away: these are the answers the person's record
    /// overrides.
    @inline(__always)
    static func personMayOverride(_ reason: Assignment.Reason) -> Bool {
        reason == .holdout || reason == .targeting || reason == .condition || reason == .namespace
    }

    /// The answer a person's record gives (its arm, or the control's paywall when that arm is
    /// stopped); nil when `key` names no variant of `e`.
    func personDecision(experiment e: AssignableExperiment, bucket: Double, key: String?) -> AssignmentDecision? {
        guard let key, let i = e.variantKeys.firstIndex(of: key) else { return nil }
        if e.stops.isStopped(i) { return AssignmentDecision(variant: -1, reason: .safeguard, bucket: bucket) }
        return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .sticky, bucket: bucket)
    }

    /// The checks before the sticky record (forced, holdout, status, dates, targeting, condition,
    /// namespace); nil when all of them passed and the rest decides.
    @inline(__always)
    func decideBeforeSticky(userID: UserID, attributes: Attributes, experiment e: AssignableExperiment, now: Date,
                            bucket: Double, heldOut: Bool) -> AssignmentDecision? {
        @inline(__always) func out(_ reason: Assignment.Reason) -> AssignmentDecision {
            AssignmentDecision(variant: -1, reason: reason, bucket: bucket)
        }
        if let i = e.forcedIndex(userID) {
            return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .forced, bucket: bucket)
        }
        if heldOut && !e.isHoldout { return out(.holdout) }
        switch e.status {
        case .draft, .stopped: return out(.notRunning)
        case .running, .paused: break
        case .shipped:
            // Enrollment is closed: dates, namespace and coverage no longer matter, only who the targeting takes.
            if e.hasTargeting, !e.targeting.matches(attributes) { return out(.targeting) }
            if let condition = e.condition, !condition.matches(attributes) { return out(.condition) }
            return out(.shipped)
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
    /// a paused experiment, coverage (times the rollout stage's share at `now`) and bucket, then
    /// a safeguard stop on the chosen arm.
    @inline(__always)
    func decideFromSticky(experiment e: AssignableExperiment, bucket: Double, stickyKey: String?, now: Date) -> AssignmentDecision {
        if let stickyKey, let i = e.variantKeys.firstIndex(of: stickyKey) {
            if e.stops.isStopped(i) { return AssignmentDecision(variant: -1, reason: .safeguard, bucket: bucket) }
            return AssignmentDecision(variant: Int32(truncatingIfNeeded: i), reason: .sticky, bucket: bucket)
        }
        if e.status == .paused { return AssignmentDecision(variant: -1, reason: .paused, bucket: bucket) }
        // Both intents: in place without a rollout, the period's ranges for a bandit (the experiment decides).
        let chosen = e.chooseVariation(bucket: bucket, at: now)
        if chosen < 0 { return AssignmentDecision(variant: -1, reason: .coverage, bucket: bucket) }
        if e.stops.isStopped(chosen) { return AssignmentDecision(variant: -1, reason: .safeguard, bucket: bucket) }
        return AssignmentDecision(variant: Int32(truncatingIfNeeded: chosen), reason: .assigned, bucket: bucket)
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
    /// Answers (positions in `indices`) decided before the sticky step that the person's record
    /// overrides when the id is linked; their experiments end `stickyExperimentIDs`.
    var personCheckAt: [Int] = []
    /// Answers (positions in `indices`) that passed the checks before the sticky record in an
    /// experiment with namespace rivals, and where each one's own experiment id sits in
    /// `stickyExperimentIDs`, its rivals' ids right after it.
    var rivalCheckAt: [Int] = []
    var rivalsFrom: [Int] = []
    /// Whether `finish` needs to know if the user is one of a person's several ids.
    public var needsLink: Bool { !personCheckAt.isEmpty }
    /// The time the checks were made at (dates, rollout stage).
    let now: Date

    init(indices: [Int], now: Date) {
        self.indices = indices
        self.now = now
    }
}

extension Assigner {
    /// The same snapshot with these safeguard stops in force (by experiment id; an experiment not
    /// named has none): the server swaps the result in as it reads stops from the store.
    public func withStops(_ stops: [String: ArmStops]) -> Assigner {
        let experiments = experiments.map { e -> AssignableExperiment in
            let wanted = stops[e.id] ?? .none
            return wanted == e.stops ? e : e.withStops(wanted)
        }
        return Assigner(experiments: experiments, placements: placements, sticky: sticky, clock: clock)
    }
}
