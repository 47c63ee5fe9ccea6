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

    /// An assigner over a loaded catalog's experiments, in catalog order.
    public init(catalog: ExperimentCatalog, sticky: (any StickyLookup)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.init(experiments: try catalog.experiments.map { try AssignableExperiment($0) }, sticky: sticky, clock: clock)
    }

    /// The same snapshot with another sticky lookup (e.g. once a store is open).
    public func withSticky(_ lookup: (any StickyLookup)?) -> Assigner {
        Assigner(experiments: experiments, sticky: lookup, clock: clock)
    }

    /// The experiment with this id, if any.
    public func experiment(_ id: String) -> AssignableExperiment? { indexByID[id].map { experiments[$0] } }

    /// One answer per experiment, in snapshot order.
    public func assign(userID: String, attributes: [String: JSONValue] = [:]) -> [Assignment] {
        var out: [Assignment] = []
        out.reserveCapacity(experiments.count)
        assign(userID: userID, attributes: attributes, into: &out)
        return out
    }

    /// Replaces `results`' contents with one answer per experiment, reusing its storage
    /// (the allocation-free form for hot loops).
    public func assign(userID: String, attributes: [String: JSONValue] = [:], into results: inout [Assignment]) {
        let now = needsClock ? clock() : Date.distantPast
        if results.count == experiments.count {
            // Overwrite in place: no shrinking and regrowing of the buffer per user.
            for i in experiments.indices {
                results[i] = assign(userID: userID, attributes: attributes, experiment: experiments[i], now: now)
            }
            return
        }
        results.removeAll(keepingCapacity: true)
        for e in experiments {
            results.append(assign(userID: userID, attributes: attributes, experiment: e, now: now))
        }
    }

    /// The answer for one experiment by id; nil when no experiment has that id.
    public func assign(userID: String, attributes: [String: JSONValue] = [:], experimentID: String) -> Assignment? {
        guard let i = indexByID[experimentID] else { return nil }
        let e = experiments[i]
        let now = (e.start != nil || e.end != nil) ? clock() : Date.distantPast
        return assign(userID: userID, attributes: attributes, experiment: e, now: now)
    }

    /// The checks of SPEC §2, in order, for one experiment at time `now`.
    public func assign(userID: String, attributes: [String: JSONValue], experiment e: AssignableExperiment, now: Date) -> Assignment {
        let bucket = e.bucket(userID: userID)
        @inline(__always) func out(_ reason: Assignment.Reason) -> Assignment {
            Assignment(experiment: e, variantIndex: nil, inExperiment: false, bucket: bucket, reason: reason)
        }
        @inline(__always) func variant(_ i: Int, _ reason: Assignment.Reason, inExperiment: Bool = true) -> Assignment {
            Assignment(experiment: e, variantIndex: i, inExperiment: inExperiment, bucket: bucket, reason: reason)
        }

        if !e.forced.isEmpty, let i = e.forced[userID] { return variant(i, .forced, inExperiment: false) }
        switch e.status {
        case .draft, .stopped: return out(.notRunning)
        case .running, .paused: break
        }
        if let start = e.start, now < start { return out(.outsideDates) }
        if let end = e.end, now >= end { return out(.outsideDates) }
        if e.hasTargeting, !e.targeting.matches(attributes) { return out(.targeting) }
        if let condition = e.condition, !condition.matches(attributes) { return out(.condition) }
        if let ns = e.namespace, !Bucketing.inNamespace(userID: userID, namespaceID: ns.id, start: ns.start, end: ns.end) {
            return out(.namespace)
        }
        if e.sticky || e.status == .paused, let sticky,
           let key = sticky.stickyVariant(experimentID: e.id, userID: userID),
           let i = e.variantKeys.firstIndex(of: key) {
            return variant(i, .sticky)
        }
        if e.status == .paused { return out(.paused) }
        let ranges = e.ranges
        for i in ranges.indices where ranges[i].lowerBound <= bucket && bucket < ranges[i].upperBound {
            return variant(i, .assigned)
        }
        return out(.coverage)
    }
}
