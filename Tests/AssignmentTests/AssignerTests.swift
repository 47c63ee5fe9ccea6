import Dispatch
import ExperimentDefinitions
import Foundation
import Synchronization
import Testing
@testable import Assignment

@Suite struct AssignerTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func exp(_ id: String = "e", status: AssignableExperiment.Status = .running, start: Date? = nil, end: Date? = nil,
                    coverage: Double = 1, namespace: Namespace? = nil,
                    targeting: Targeting = Targeting(), condition: Condition? = nil, sticky: Bool = false,
                    forced: [UserID: String] = [:], weights: [Double] = [1, 1, 1]) throws -> AssignableExperiment {
        try AssignableExperiment(id: id, status: status, start: start, end: end, coverage: coverage, namespace: namespace,
                                 targeting: targeting, condition: condition, sticky: sticky, forced: forced,
                                 variants: weights.enumerated().map { (key: ["control", "name", "ai", "x"][$0.offset], weight: $0.element) })
    }

    static func one(_ e: AssignableExperiment, _ user: UserID = "u1", _ attrs: Attributes = [:],
                    now: Date = t0, sticky: (any StickyLookup)? = nil) -> Assignment {
        Assigner(experiments: [e], sticky: sticky, clock: { now }).assign(userID: user, attributes: attrs)[0]
    }

    @Test func assignedMatchesBucketAndGrowthBookHash() throws {
        let e = try Self.exp("chorus-paywall-copy")
        let r = Self.one(e, "user-42")
        #expect(r.reason == .assigned && r.inExperiment)
        #expect(r.bucket == Bucketing.hash(seed: "chorus-paywall-copy", value: "user-42", version: 2))
        #expect(r.variantIndex == Bucketing.chooseVariation(r.bucket, ranges: Bucketing.bucketRanges(numVariations: 3)))
        #expect(r.variantKey == e.variantKeys[r.variantIndex!])
        #expect(r.experimentID == "chorus-paywall-copy")
    }

    @Test func seedDefaultsToIDAndHashVersionOneWorks() throws {
        let e = try AssignableExperiment(id: "abc", status: .running, hashVersion: 1, variants: [("a", 1), ("b", 1)])
        #expect(e.seed == "abc")
        #expect(e.bucket(userID: "u") == Bucketing.hash(seed: "abc", value: "u", version: 1))
        #expect(throws: AssignableExperimentError.self) {
            try AssignableExperiment(id: "x", status: .running, hashVersion: 3, variants: [("a", 1), ("b", 1)])
        }
        #expect(throws: AssignableExperimentError.self) {
            try AssignableExperiment(id: "x", status: .running, variants: [("a", 0), ("b", 1)])
        }
    }

    @Test func forcedComesFirstEvenForDrafts() throws {
        let e = try Self.exp(status: .draft, targeting: Targeting(platform: ["ios"]), forced: ["qa-device-1": "ai", "qa-2": "nope"])
        let r = Self.one(e, "qa-device-1")
        #expect(r.reason == .forced && r.variantKey == "ai" && !r.inExperiment)
        // A forced key naming no variant is ignored.
        #expect(Self.one(e, "qa-2").reason == .notRunning)
    }

    @Test(arguments: [AssignableExperiment.Status.draft, .stopped])
    func notRunning(_ status: AssignableExperiment.Status) throws {
        let r = Self.one(try Self.exp(status: status))
        #expect(r.reason == .notRunning && r.variantKey == nil && !r.inExperiment)
    }

    @Test func datesAreHalfOpen() throws {
        let e = try Self.exp(start: Self.t0, end: Self.t0.addingTimeInterval(3600))
        #expect(Self.one(e, now: Self.t0.addingTimeInterval(-1)).reason == .outsideDates)
        #expect(Self.one(e, now: Self.t0).reason == .assigned)
        #expect(Self.one(e, now: Self.t0.addingTimeInterval(3599)).reason == .assigned)
        #expect(Self.one(e, now: Self.t0.addingTimeInterval(3600)).reason == .outsideDates)
    }

    @Test func targeting() throws {
        let rule = Targeting(platform: ["ios"], country: ["GB", "US"], appVersion: VersionConstraint(">=2.1.0"), newUsersOnly: true)
        let e = try Self.exp(targeting: rule)
        let ok: Attributes = ["platform": .string("ios"), "country": .string("gb"), "app_version": .string("2.10"), "new_user": .bool(true)]
        #expect(Self.one(e, "u", ok).reason == .assigned)
        #expect(rule.failedAttribute(ok) == nil)
        for (key, _) in ok.members {
            var missing = ok
            missing[key] = nil
            #expect(Self.one(e, "u", missing).reason == .targeting, "missing \(key)")
            #expect(rule.failedAttribute(missing) == key, "missing \(key)")
        }
        var old = ok; old["app_version"] = .string("2.0.9")
        #expect(Self.one(e, "u", old).reason == .targeting)
        #expect(rule.failedAttribute(old) == "app_version")
        var returning = ok; returning["new_user"] = .bool(false)
        #expect(Self.one(e, "u", returning).reason == .targeting)
        #expect(rule.failedAttribute(returning) == "new_user")
        var android = ok; android["platform"] = .string("android")
        #expect(Self.one(e, "u", android).reason == .targeting)
        #expect(rule.failedAttribute(android) == "platform")
        var numeric = ok; numeric["country"] = .number(44)
        #expect(Self.one(e, "u", numeric).reason == .targeting)
        #expect(rule.failedAttribute(numeric) == "country")
        // Several failing: the first in the order platform, country, language, app_version, new_user.
        #expect(rule.failedAttribute(["country": .string("FR"), "new_user": .bool(false)]) == "platform")
        #expect(rule.failedAttribute(["platform": .string("ios"), "new_user": .bool(false)]) == "country")
    }

    @Test(arguments: [
        (">=2.1.0", "2.1", true), (">=2.1.0", "2.0.99", false), (">2", "2.0.0", false), (">2", "2.0.1", true),
        ("<=3.0", "3", true), ("<3", "2.99.99", true), ("<3", "3.0.0", false), ("==2.4.1", "2.4.1", true),
        ("==2.4.1", "2.4.10", false), (">= 1.10", "1.9", false), (">=1.10", "1.10.0-beta", false), ("==2.4.1", "v2.4.1", false),
        (">=1", "abc", false), (">=1", "1..2", false), (">=1", "", false),
    ])
    func appVersion(_ constraint: String, _ version: String, _ expected: Bool) throws {
        let c = try #require(VersionConstraint(constraint))
        let e = try Self.exp(targeting: Targeting(appVersion: c))
        #expect((Self.one(e, "u", ["app_version": .string(version)]).reason == .assigned) == expected)
        #expect(Self.one(e, "u", ["app_version": .number(3)]).reason == .targeting)
    }

    /// The fast matcher agrees with the model's `VersionConstraint.matches` everywhere.
    @Test func fastVersionMatchingAgreesWithTheModel() throws {
        let versions = ["", "1", "2", "2.0", "2.1", "2.1.0", "2.1.0.0", "2.1.1", "2.10", "10", "0.9.99", "1..2", ".1", "1.",
                        "v2.1", "2.1.0-beta", "1234567890", "123456789", "2.1.x", "٣", "2.01", "0", "0.0.0.1"]
        for constraint in [">=2.1.0", ">2.1", "<=2", "<2.1.0.0", "==2.1", "==0", ">=0.0.0.1", "<10"] {
            let c = try #require(VersionConstraint(constraint))
            for v in versions {
                #expect(Targeting.versionMatches(c, v) == c.matches(v), "\(constraint) vs '\(v)'")
            }
        }
    }

    @Test func conditionIsCheckedAfterTargeting() throws {
        let c = try Condition(.object([("plan_views", .object([("$gte", .number(3))]))]))
        let e = try Self.exp(targeting: Targeting(platform: ["ios"]), condition: c)
        #expect(Self.one(e, "u", ["plan_views": .number(5)]).reason == .targeting)
        #expect(Self.one(e, "u", ["platform": .string("ios"), "plan_views": .number(1)]).reason == .condition)
        #expect(Self.one(e, "u", ["platform": .string("ios"), "plan_views": .number(3)]).reason == .assigned)
    }

    @Test func namespacesNeverShareAUser() throws {
        let a = try Self.exp("a", namespace: .init(id: "paywall", start: 0, end: 0.5))
        let b = try Self.exp("b", namespace: .init(id: "paywall", start: 0.5, end: 1))
        let assigner = Assigner(experiments: [a, b])
        var inA = 0, inB = 0
        for i in 0..<5000 {
            let rs = assigner.assign(userID: "user-\(i)")
            #expect(!(rs[0].inExperiment && rs[1].inExperiment))
            #expect(rs[0].inExperiment || rs[1].inExperiment)
            if rs[0].inExperiment { inA += 1 } else { #expect(rs[0].reason == .namespace) }
            if rs[1].inExperiment { inB += 1 }
        }
        #expect(inA > 2300 && inB > 2300)
    }

    @Test func stickyKeepsTheExposedVariantAfterWeightsChange() throws {
        let store = StickyLookupClosure { exp, user in (exp == "e" && user == "u1") ? "ai" : nil }
        let before = try Self.exp(sticky: true, weights: [1, 0.0001, 0.0001])
        #expect(Self.one(before, "u1", sticky: store).reason == .sticky)
        #expect(Self.one(before, "u1", sticky: store).variantKey == "ai")
        #expect(Self.one(before, "u2", sticky: store).reason == .assigned)
        // Not sticky: the store is not consulted.
        let loose = try Self.exp(sticky: false, weights: [1, 0.0001, 0.0001])
        #expect(Self.one(loose, "u1", sticky: store).reason == .assigned)
        // A stored key the experiment no longer has is ignored.
        let gone = StickyLookupClosure { _, _ in "removed-variant" }
        #expect(Self.one(before, "u1", sticky: gone).reason == .assigned)
    }

    @Test func stickyComesAfterTargetingAndNamespace() throws {
        let store = StickyLookupClosure { _, _ in "ai" }
        let e = try Self.exp(targeting: Targeting(platform: ["ios"]), sticky: true)
        #expect(Self.one(e, "u1", [:], sticky: store).reason == .targeting)
    }

    @Test func pausedAssignsNobodyNewButKeepsStickyUsers() throws {
        let store = StickyLookupClosure { _, user in user == "old" ? "name" : nil }
        let e = try Self.exp(status: .paused)
        #expect(Self.one(e, "old", sticky: store).reason == .sticky)
        #expect(Self.one(e, "old", sticky: store).variantKey == "name")
        let fresh = Self.one(e, "new", sticky: store)
        #expect(fresh.reason == .paused && fresh.variantKey == nil && !fresh.inExperiment)
        #expect(Self.one(e, "old").reason == .paused)
    }

    @Test func coverage() throws {
        let none = Self.one(try Self.exp(coverage: 0))
        #expect(none.reason == .coverage && none.variantKey == nil && !none.inExperiment)
        let e = try Self.exp(coverage: 0.3, weights: [1, 1])
        var inside = 0
        for i in 0..<20_000 where Self.one(e, "c-\(i)").inExperiment { inside += 1 }
        #expect(abs(Double(inside) / 20_000 - 0.3) < 0.02)
    }

    @Test func lookupByIDAndReuse() throws {
        let assigner = Assigner(experiments: [try Self.exp("a"), try Self.exp("b", status: .stopped)])
        #expect(assigner.assign(userID: "u", experimentID: "b")?.reason == .notRunning)
        #expect(assigner.assign(userID: "u", experimentID: "zzz") == nil)
        var buffer: [Assignment] = []
        assigner.assign(userID: "u", into: &buffer)
        #expect(buffer.map(\.experimentID) == ["a", "b"])
        assigner.assign(userID: "v", into: &buffer)
        #expect(buffer.count == 2)
    }

    /// A request's sticky records are read in one call, for the experiments whose checks before
    /// the sticky step passed and the sticky ones a linked id's person's record could still decide
    /// (a remote store pays one round trip per request).
    @Test func stickyRecordsOfARequestAreReadInOneCall() throws {
        let lookup = CountingStickyLookup { exp, _ in exp == "c" ? "ai" : nil }
        let experiments = [
            try Self.exp("a", sticky: true), try Self.exp("b", status: .paused), try Self.exp("c", sticky: true, weights: [1, 0.0001, 0.0001]),
            try Self.exp("d", status: .draft, sticky: true), try Self.exp("f", targeting: Targeting(platform: ["ios"]), sticky: true),
            try Self.exp("g"),
        ]
        let assigner = Assigner(experiments: experiments, sticky: lookup, clock: { Self.t0 })
        let answers = assigner.assign(userID: "u1")
        #expect(answers.map(\.reason) == [.assigned, .paused, .sticky, .notRunning, .targeting, .assigned])
        #expect(answers[2].variantKey == "ai")
        // "f", left out by targeting, is asked too: a linked id's person's record would decide it.
        #expect(lookup.calls.withLock { $0 } == [["a", "b", "c", "f"]])
        // Listed ids: their order, one call, and the same answers as one experiment at a time.
        let listed = assigner.assign(userID: "u1", attributes: ["platform": .string("ios")], experimentsAt: [4, 2, 0])
        #expect(lookup.calls.withLock { $0.last } == ["f", "c", "a"])
        #expect(listed == [4, 2, 0].map { assigner.assign(userID: "u1", attributes: ["platform": .string("ios")], experimentAt: $0) })
        #expect(listed.map(\.reason) == [.assigned, .sticky, .assigned])
    }

    /// The compact decisions equal the full answers, reason for reason.
    @Test func decisionsMatchAssignments() throws {
        let store = StickyLookupClosure { _, user in user.text.hasSuffix("7") ? "name" : nil }
        let experiments = [
            try Self.exp("a", forced: ["user-3": "ai"]), try Self.exp("b", status: .paused), try Self.exp("c", coverage: 0.5, sticky: true),
            try Self.exp("d", status: .draft), try Self.exp("e", namespace: Namespace(id: "n", start: 0, end: 0.5)),
            try Self.exp("f", targeting: Targeting(platform: ["ios"])),
        ]
        let assigner = Assigner(experiments: experiments, sticky: store, clock: { Self.t0 })
        var decisions: [AssignmentDecision] = []
        var reasons = Set<Assignment.Reason>()
        for i in 0..<2000 {
            let user: UserID = "user-\(i)"
            let attrs: Attributes = i % 2 == 0 ? ["platform": .string("ios")] : [:]
            let full = assigner.assign(userID: user, attributes: attrs)
            assigner.decide(userID: user, attributes: attrs, into: &decisions)
            #expect(decisions.count == full.count)
            for (d, a) in zip(decisions, full) {
                #expect(Assignment(experiment: a.experiment, decision: d) == a)
                reasons.insert(a.reason)
            }
        }
        #expect(reasons == [.forced, .paused, .sticky, .coverage, .assigned, .notRunning, .namespace, .targeting])
    }

    /// Many threads at once get exactly the serial answers.
    @Test func concurrentCallsAgreeWithSerial() throws {
        let experiments = try (0..<8).map { try Self.exp("exp-\($0)", coverage: 0.8) }
        let assigner = Assigner(experiments: experiments)
        let users = (0..<4000).map { UserID("user-\($0)-é😀") }
        let serial = users.map { assigner.assign(userID: $0) }
        let mismatches = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for (i, u) in users.enumerated() where i % 8 == worker || worker == 0 {
                if assigner.assign(userID: u) != serial[i] { mismatches.add(1, ordering: .relaxed) }
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}

/// The shipped experiments load into an Assigner; answers carry the model's variants.
@Suite struct CatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func shippedExperimentsAssign() throws {
        let catalog = try ExperimentFiles.load(directory: Self.root.appendingPathComponent("Experiments").path)
        let assigner = try Assigner(catalog: catalog, clock: { Date(timeIntervalSince1970: 1_900_000_000) })
        #expect(assigner.experiments.map(\.id) == catalog.experiments.map(\.id))
        var seen = 0
        for i in 0..<3000 {
            let answers = assigner.assign(userID: "user-\(i)", attributes: [
                "platform": .string("ios"), "country": .string("US"), "app_version": .string("9.0.0"), "new_user": .bool(true),
                "language": .string("en"),
            ])
            for (a, e) in zip(answers, catalog.experiments) {
                #expect(a.bucket == Bucketing.hash(seed: e.seed, value: "user-\(i)", version: e.hashVersion))
                if let v = a.variant {
                    #expect(v.key == a.variantKey)
                    seen += 1
                }
            }
            // The shipped paywall experiments split one namespace: nobody is in two (the bandit
            // chorus-voice takes every iOS user, and only feature_gate's ios audience shows it); the
            // global holdout's held-out users are in none of them (its other users may be in one).
            let inExperiments = zip(answers, catalog.experiments).filter { $0.0.inExperiment && !$0.1.isHoldout }
            #expect(inExperiments.filter { $0.1.namespace != nil }.count <= 1)
            if answers.contains(where: { $0.reason == .holdout }) { #expect(inExperiments.isEmpty) }
        }
        #expect(seen > 1000)
    }
}

/// A sticky lookup that records each batched call's experiment ids.
final class CountingStickyLookup: StickyLookup {
    let calls = Mutex<[[String]]>([])
    let answer: @Sendable (String, UserID) -> String?

    init(_ answer: @escaping @Sendable (String, UserID) -> String?) { self.answer = answer }

    func stickyVariant(experimentID: String, userID: UserID) -> String? { answer(experimentID, userID) }

    func stickyVariants(experimentIDs: [String], userID: UserID) -> [String?] {
        calls.withLock { $0.append(experimentIDs) }
        return experimentIDs.map { answer($0, userID) }
    }
}
