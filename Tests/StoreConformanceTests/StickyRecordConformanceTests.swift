import Events
import ExperimentDefinitions
import Foundation
import Testing
import TestSupport

/// The sticky record on the assign path, whatever a store does to skip reads for
/// users it has never seen (SQLite keeps a filter of exposed pairs): an acknowledged exposure
/// is the record for the very next call, through this store or another writer on the same data,
/// and a user never exposed has none.
@Suite struct StickyRecordConformanceTests {
    typealias F = EventFactory

    /// Users 0..<n; even ones are exposed to A, every third to B; none of them to C.
    static func expectedVariant(_ user: Int, _ experiment: String) -> String? {
        switch experiment {
        case "A": user % 2 == 0 ? (user % 4 == 0 ? "control" : "name") : nil
        case "B": user % 3 == 0 ? "ai" : nil
        default: nil
        }
    }

    static func exposures(of user: Int) -> [Event] {
        ["A", "B"].compactMap { e in
            expectedVariant(user, e).map { F.exposure(EventID("\(e)-\(user)"), user: UserID("user-\(user)"), experiment: e, variant: $0, hours: 1) }
        }
    }

    static func checkAll(_ sticky: any StickyReader, users: Range<Int>, exposedBelow: Int) throws {
        for user in users {
            let expected = ["A", "B", "C"].map { user < exposedBelow ? expectedVariant(user, $0) : nil }
            #expect(try sticky.exposedVariants(experiments: ["A", "B", "C"], userID: UserID("user-\(user)")) == expected, "user-\(user)")
        }
    }

    /// A reader made before any write: each exposure is seen by the next call after its append
    /// returns; users not yet exposed (or never) have no record.
    @Test(arguments: storeFactories)
    func eachAcknowledgedExposureIsTheNextCallsRecord(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let sticky = try store.makeStickyReader(maxIdle: 2)
            try Self.checkAll(sticky, users: 0..<40, exposedBelow: 0)
            // The filter (where there is one) is built and published at start.
            try await Task.sleep(for: .milliseconds(100))
            var user = 0
            var rng = SeededGenerator(seed: 5)
            while user < 200 {
                let chunk = Int.random(in: 1...12, using: &rng)
                _ = try store.appendAndWait((user..<user + chunk).flatMap(Self.exposures))
                user += chunk
                // The users just stored, one never stored, and one whose turn has not come.
                for u in (user - chunk)..<user {
                    #expect(try sticky.exposedVariant(experiment: "A", userID: UserID("user-\(u)")) == Self.expectedVariant(u, "A"))
                    #expect(try sticky.exposedVariant(experiment: "B", userID: UserID("user-\(u)")) == Self.expectedVariant(u, "B"))
                }
                #expect(try sticky.exposedVariant(experiment: "A", userID: UserID("user-\(user + 2)")) == nil)
                #expect(try sticky.exposedVariant(experiment: "C", userID: UserID("user-\(user - 1)")) == nil)
            }
            try Self.checkAll(sticky, users: 0..<250, exposedBelow: user)
        }
    }

    /// A reader made after the exposures were stored knows them from its first call.
    @Test(arguments: storeFactories)
    func aReaderMadeLaterKnowsEarlierExposures(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            _ = try store.appendAndWait((0..<150).flatMap(Self.exposures))
            let sticky = try store.makeStickyReader(maxIdle: 2)
            try Self.checkAll(sticky, users: 0..<170, exposedBelow: 150)
            try await Task.sleep(for: .milliseconds(100))
            try Self.checkAll(sticky, users: 0..<170, exposedBelow: 150)
        }
    }

    /// Two writers on the same data (two processes on one file, two nodes on one database): an
    /// exposure acknowledged by either is the next call's record on the other's reader.
    @Test(arguments: storeFactories)
    func anExposureThroughAnotherWriterIsTheNextCallsRecord(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { first, second in
            let sticky = try first.makeStickyReader(maxIdle: 2)
            let otherSticky = try second.makeStickyReader(maxIdle: 2)
            _ = try first.appendAndWait((0..<20).flatMap(Self.exposures))
            try await Task.sleep(for: .milliseconds(100))
            try Self.checkAll(sticky, users: 0..<25, exposedBelow: 20)
            for user in 20..<80 {
                // Alternating writers; each reader asked right after the other one's append.
                let writer = user % 2 == 0 ? second : first
                _ = try writer.appendAndWait(Self.exposures(of: user))
                for reader in [sticky, otherSticky] {
                    #expect(try reader.exposedVariants(experiments: ["A", "B", "C"], userID: UserID("user-\(user)"))
                            == ["A", "B", "C"].map { Self.expectedVariant(user, $0) }, "user-\(user)")
                    #expect(try reader.exposedVariant(experiment: "A", userID: UserID("user-\(user + 1)")) == nil)
                }
                if user % 20 == 0 { try await Task.sleep(for: .milliseconds(30)) }   // let a writer's recheck run
            }
            try Self.checkAll(sticky, users: 0..<90, exposedBelow: 80)
            try Self.checkAll(otherSticky, users: 0..<90, exposedBelow: 80)
        }
    }
}
