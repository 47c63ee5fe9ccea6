import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Testing
import TestSupport

/// A namespace keeps people apart, not only ids: a person exposed to one experiment of a namespace
/// is left out (`namespace`) of another whose range does not overlap, even when the id that asks
/// hashes into that other one's range, whether the ids were linked before the first exposure or
/// after it, through the in-process and the remote assign paths; a person exposed to both anyway
/// keeps its own records.
@Suite struct NamespacePeopleConformanceTests {
    typealias F = EventFactory

    static let left = Namespace(id: "paywall", start: 0, end: 0.5), right = Namespace(id: "paywall", start: 0.5, end: 1)

    /// The first id of `prefix-0`, `prefix-1`, … whose namespace position falls in `slice`.
    static func id(_ prefix: String, in slice: Namespace) -> UserID {
        for n in 0... {
            let id = "\(prefix)-\(n)"
            if Bucketing.inNamespace(userID: id, namespaceID: slice.id, start: slice.start, end: slice.end) { return UserID(id) }
        }
        fatalError("unreachable")
    }

    struct Lookup: StickyLookup {
        let reader: any StickyReader
        func stickyVariant(experimentID: String, userID: UserID) -> String? {
            (try? reader.exposedVariant(experiment: experimentID, userID: userID)) ?? nil
        }
        func stickyVariants(experimentIDs: [String], userID: UserID) -> [String?] {
            (try? reader.exposedVariants(experiments: experimentIDs, userID: userID)) ?? experimentIDs.map { _ in nil }
        }
        func stickyRecords(experimentIDs: [String], userID: UserID) -> (variants: [String?], linked: Bool) {
            let a = try? reader.exposedVariantsAndLink(experiments: experimentIDs, userID: userID)
            return (a?.variants ?? experimentIDs.map { _ in nil }, a?.linked ?? false)
        }
    }

    /// The answers for `user` (first experiment, second) by every path an assign takes.
    static func answers(_ assigner: Assigner, _ reader: any StickyReader, _ user: UserID) async throws -> [[Assignment.Reason]] {
        let inProcess = assigner.assign(userID: user).map(\.reason)
        let one = [assigner.assign(userID: user, experimentID: "first")!.reason, assigner.assign(userID: user, experimentID: "second")!.reason]
        let pending = assigner.prepare(userID: user, experimentsAt: [0, 1])
        let records = try await withCheckedThrowingContinuation { (c: CheckedContinuation<StickyAnswers, any Error>) in
            reader.exposedVariantsAndLink(experiments: pending.stickyExperimentIDs, userID: user) { c.resume(with: $0) }
        }
        let remote = assigner.finish(pending, stickyKeys: records.variants, linked: records.linked).map(\.reason)
        return [inProcess, one, remote]
    }

    @Test(arguments: storeFactories, [false, true])
    func aPersonExposedToOneIsLeftOutOfTheOther(_ factory: StoreFactory, identifyFirst: Bool) async throws {
        let anon = Self.id("anon", in: Self.left), acct = Self.id("acct", in: Self.right), stranger = Self.id("stranger", in: Self.right)
        try await factory.withStore { store in
            let identify = Event(id: "identify:acct", type: .identified, userID: anon, timestamp: F.at(identifyFirst ? 0.5 : 2), identity: acct)
            let exposure = F.exposure("x1", user: anon, experiment: "first", variant: "a", hours: 1)
            for events in identifyFirst ? [[identify], [exposure]] : [[exposure], [identify]] { _ = try store.appendAndWait(events) }
            // A person exposed to both anyway (two ids exposed before they were linked) keeps its own records.
            let anonBoth = Self.id("anon-both", in: Self.left), acctBoth = Self.id("acct-both", in: Self.right)
            _ = try store.appendAndWait([F.exposure("x1", user: anonBoth, experiment: "first", variant: "a", hours: 1),
                                         F.exposure("x2", user: acctBoth, experiment: "second", variant: "b", hours: 1)])
            _ = try store.appendAndWait([Event(id: "identify:both", type: .identified, userID: anonBoth, timestamp: F.at(2), identity: acctBoth)])
            let reader = try store.makeStickyReader(maxIdle: 1)
            for sticky in [false, true] {
                let experiments = try [("first", Self.left), ("second", Self.right)].map { id, ns in
                    try AssignableExperiment(id: id, status: .running, namespace: ns, sticky: sticky, variants: [("a", 1), ("b", 1)])
                }
                let assigner = Assigner(experiments: experiments, sticky: Lookup(reader: reader))
                // The account hashes into the second's range, but its person saw the first.
                for reasons in try await Self.answers(assigner, reader, acct) {
                    #expect(reasons[1] == .namespace, "acct, sticky \(sticky): \(reasons)")
                    #expect(reasons[0] == (sticky ? .sticky : .namespace), "acct, sticky \(sticky): \(reasons)")
                }
                for reasons in try await Self.answers(assigner, reader, anon) {
                    #expect(reasons[1] == .namespace && reasons[0] != .namespace, "anon, sticky \(sticky): \(reasons)")
                }
                if sticky {
                    for reasons in try await Self.answers(assigner, reader, acctBoth) { #expect(reasons == [.sticky, .sticky], "both: \(reasons)") }
                }
                // Nobody else is left out of the second.
                for reasons in try await Self.answers(assigner, reader, stranger) {
                    #expect(reasons == [.namespace, .assigned], "stranger, sticky \(sticky): \(reasons)")
                }
            }
        }
    }
}
