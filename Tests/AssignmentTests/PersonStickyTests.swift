import ExperimentDefinitions
import Foundation
import Testing
@testable import Assignment

/// The sticky record is the person's: for an id linked to a person with an exposure to the
/// experiment, the person's arm is read right after forced, status and dates; holdout, targeting,
/// condition and namespace are not re-checked for it. An id of its own keeps the usual order of
/// checks (targeting before the sticky record).
@Suite struct PersonStickyTests {
    /// Records of `person` ("acct" and "anon" are its ids) and of a plain user "solo".
    struct People: StickyLookup {
        let arm: String
        func stickyVariant(experimentID: String, userID: UserID) -> String? {
            stickyRecords(experimentIDs: [experimentID], userID: userID).variants[0]
        }
        func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool) {
            let linked = userID == "acct" || userID == "anon"
            let has = linked || userID == "solo"
            return (experimentIDs.map { $0 == "e" && has ? arm : nil }, linked)
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let ios: Attributes = ["platform": .string("ios")]
    static let android: Attributes = ["platform": .string("android")]

    static func exp(status: AssignableExperiment.Status = .running, end: Date? = nil, namespace: Namespace? = nil,
                    stops: ArmStops = .none, forced: [UserID: String] = [:]) throws -> AssignableExperiment {
        try AssignableExperiment(id: "e", status: status, end: end, namespace: namespace, targeting: Targeting(platform: ["ios"]),
                                 sticky: true, forced: forced, variants: [("control", 1), ("name", 1), ("ai", 1)], stops: stops)
    }

    /// Every form of the assigner: one experiment, a request's experiments, and prepare/finish (the remote store's path).
    static func answers(_ e: AssignableExperiment, _ user: UserID, _ attrs: Attributes, extra: [AssignableExperiment] = [],
                        arm: String = "ai") -> [Assignment] {
        let lookup = People(arm: arm)
        let assigner = Assigner(experiments: extra + [e], sticky: lookup, clock: { t0 })
        let i = extra.count
        let single = assigner.assign(userID: user, attributes: attrs, experiment: assigner.experiments[i], now: t0)
        let request = assigner.assign(userID: user, attributes: attrs, experimentsAt: Array(assigner.experiments.indices), at: t0)[i]
        let pending = assigner.prepare(userID: user, attributes: attrs, experimentsAt: Array(assigner.experiments.indices), at: t0)
        let records = lookup.stickyRecords(experimentIDs: pending.stickyExperimentIDs, userID: user)
        let finished = assigner.finish(pending, stickyKeys: records.variants, linked: pending.needsLink && records.linked)[i]
        return [single, request, finished]
    }

    static func expect(_ answers: [Assignment], _ reason: Assignment.Reason, _ variant: String?, _ comment: Comment) {
        for (form, a) in zip(["one", "request", "prepare/finish"], answers) {
            #expect(a.reason == reason && a.variantKey == variant, "\(comment): \(form) answered \(a.reason) \(a.variantKey ?? "nil")")
        }
    }

    @Test func aLinkedIDKeepsItsPersonsArmWhenTargetingLeavesItOut() throws {
        let e = try Self.exp()
        Self.expect(Self.answers(e, "acct", Self.android), .sticky, "ai", "known id, targeting fails")
        Self.expect(Self.answers(e, "anon", Self.android), .sticky, "ai", "anonymous id, targeting fails")
        Self.expect(Self.answers(e, "acct", Self.ios), .sticky, "ai", "known id, targeting passes")
        // An id of its own with a record: targeting first (the usual order of checks).
        Self.expect(Self.answers(e, "solo", Self.android), .targeting, nil, "plain id, targeting fails")
        Self.expect(Self.answers(e, "solo", Self.ios), .sticky, "ai", "plain id, targeting passes")
        // No record: hashed on the id that asks.
        Self.expect(Self.answers(e, "new", Self.android), .targeting, nil, "no record")
    }

    @Test func aLinkedIDKeepsItsPersonsArmOutsideTheNamespaceAndAHoldout() throws {
        // A namespace no id falls in.
        let e = try Self.exp(namespace: Namespace(id: "ns", start: 0, end: 0))
        Self.expect(Self.answers(e, "acct", Self.ios), .sticky, "ai", "namespace")
        Self.expect(Self.answers(e, "solo", Self.ios), .namespace, nil, "plain id, namespace")
        // A global holdout that holds both ids out.
        let holdout = try AssignableExperiment(id: "h", status: .running, forced: ["acct": "holdout", "solo": "holdout"],
                                               variants: [("holdout", 1), ("general", 1)], isHoldout: true)
        let plain = try Self.exp()
        Self.expect(Self.answers(plain, "acct", Self.ios, extra: [holdout]), .sticky, "ai", "holdout")
        Self.expect(Self.answers(plain, "solo", Self.ios, extra: [holdout]), .holdout, nil, "plain id, holdout")
    }

    @Test func forcedStatusDatesAndStopsStillComeFirst() throws {
        Self.expect(Self.answers(try Self.exp(forced: ["acct": "name"]), "acct", Self.android), .forced, "name", "forced")
        Self.expect(Self.answers(try Self.exp(status: .stopped), "acct", Self.android), .notRunning, nil, "stopped")
        Self.expect(Self.answers(try Self.exp(end: Self.t0.addingTimeInterval(-1)), "acct", Self.android), .outsideDates, nil, "ended")
        let stopped = try Self.exp(stops: ArmStops(stoppedArms: [false, false, true], holdStageAt: nil))
        Self.expect(Self.answers(stopped, "acct", Self.android), .safeguard, nil, "the person's arm is stopped")
        // A record naming no variant is ignored: the original answer stands, never a new hash.
        Self.expect(Self.answers(try Self.exp(), "acct", Self.android, arm: "gone"), .targeting, nil, "unknown arm")
    }
}
