import Events
import Testing
import TestSupport

/// The notifications outbox on every store: one row per (id, target) whichever store
/// writes it, claimed by one claimant at a time until its claim runs out, never claimed again once
/// delivered or failed, and a try recorded only by the claimant that holds it.
@Suite struct NotificationOutboxConformanceTests {
    static let t0 = Timestamp(microseconds: 1_796_083_200_000_000)

    static func seconds(_ s: Double) -> Timestamp { Timestamp(microseconds: t0.microseconds + Int64(s * 1_000_000)) }

    static func notification(_ id: String, type: String = "past_end", experiment: String = "chorus-trial-length",
                             recordedAt: Timestamp = t0) -> OutboxNotification {
        OutboxNotification(id: id, type: type, experiment: experiment, at: t0, text: "chorus-trial-length is past its end \u{E9}",
                           details: #"{"end":"2026-12-01T00:00:00Z"}"#, recordedAt: recordedAt)
    }

    @Test(arguments: storeFactories)
    func aNotificationIsRecordedOncePerTargetAndReadBackWhole(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            #expect(try a.recordNotification(Self.notification("n1"), targets: ["http://127.0.0.1:1/a", "slack+https://example.com/b"]) == 2)
            // The same id from another node (or after a restart) adds nothing.
            #expect(try b.recordNotification(Self.notification("n1"), targets: ["http://127.0.0.1:1/a"]) == 0)
            #expect(try a.recordNotification(Self.notification("n2"), targets: []) == 0)
            let rows = try b.notifications(experiment: "chorus-trial-length")
            #expect(rows.map(\.target).sorted() == ["http://127.0.0.1:1/a", "slack+https://example.com/b"])
            var expected = Self.notification("n1")
            expected.target = "http://127.0.0.1:1/a"
            #expect(rows.first { $0.target == expected.target } == expected)
            #expect(try a.notifications(experiment: "other").isEmpty)
        }
    }

    @Test(arguments: storeFactories)
    func oneClaimantAtATimeUntilTheClaimRunsOut(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            _ = try a.recordNotification(Self.notification("n1"), targets: ["http://127.0.0.1:1/a"])
            let claimed = try #require(try a.claimNotification(claimant: "node-a", now: Self.seconds(1), until: Self.seconds(31)))
            #expect(claimed.id == "n1" && claimed.claimedBy == "node-a" && claimed.claimedUntil == Self.seconds(31))
            // The other node finds nothing while the claim holds.
            #expect(try b.claimNotification(claimant: "node-b", now: Self.seconds(2), until: Self.seconds(32)) == nil)
            // A try recorded by a node that does not hold the claim changes nothing.
            try b.finishNotificationTry(id: "n1", target: "http://127.0.0.1:1/a", claimant: "node-b", outcome: .delivered(at: Self.seconds(3)))
            #expect(try a.notifications(experiment: nil).first?.state == .pending)
            // The claimant died: once its claim ran out, another takes it.
            let taken = try #require(try b.claimNotification(claimant: "node-b", now: Self.seconds(31), until: Self.seconds(61)))
            #expect(taken.claimedBy == "node-b" && taken.attempts == 0)
            // The first claimant, back, can no longer record its try.
            try a.finishNotificationTry(id: "n1", target: "http://127.0.0.1:1/a", claimant: "node-a", outcome: .delivered(at: Self.seconds(32)))
            #expect(try a.notifications(experiment: nil).first?.state == .pending)
        }
    }

    @Test(arguments: storeFactories)
    func aRetryWaitsItsTurnAndADeliveredOneIsNeverClaimedAgain(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            _ = try a.recordNotification(Self.notification("n1"), targets: ["http://127.0.0.1:1/a"])
            _ = try a.recordNotification(Self.notification("n2", recordedAt: Self.seconds(1)), targets: ["http://127.0.0.1:1/a"])
            let first = try #require(try a.claimNotification(claimant: "node-a", now: Self.seconds(1), until: Self.seconds(31)))
            #expect(first.id == "n1")
            try a.finishNotificationTry(id: "n1", target: first.target, claimant: "node-a", outcome: .retry(next: Self.seconds(10), error: "answered 503"))
            let retried = try #require(try a.notifications(experiment: nil).first { $0.id == "n1" })
            #expect(retried.state == .pending && retried.attempts == 1 && retried.nextTryAt == Self.seconds(10)
                    && retried.claimedBy == nil && retried.lastError == "answered 503")
            // Before its next try, the other one is due.
            let second = try #require(try b.claimNotification(claimant: "node-b", now: Self.seconds(2), until: Self.seconds(32)))
            #expect(second.id == "n2")
            try b.finishNotificationTry(id: "n2", target: second.target, claimant: "node-b", outcome: .failed(at: Self.seconds(3), error: "answered 404"))
            #expect(try b.claimNotification(claimant: "node-b", now: Self.seconds(5), until: Self.seconds(35)) == nil)
            let again = try #require(try b.claimNotification(claimant: "node-b", now: Self.seconds(10), until: Self.seconds(40)))
            #expect(again.id == "n1" && again.attempts == 1)
            try b.finishNotificationTry(id: "n1", target: again.target, claimant: "node-b", outcome: .delivered(at: Self.seconds(11)))
            // Delivered and failed rows are never claimed again, by any node, at any time.
            #expect(try a.claimNotification(claimant: "node-a", now: Self.seconds(100_000), until: Self.seconds(100_030)) == nil)
            let rows = try a.notifications(experiment: nil)
            #expect(rows.map(\.state) == [.delivered, .failed])
            #expect(rows[0].attempts == 2 && rows[0].finishedAt == Self.seconds(11) && rows[0].lastError == nil)
            #expect(rows[1].attempts == 1 && rows[1].lastError == "answered 404")
        }
    }

    @Test(arguments: storeFactories)
    func theFailedOnesAreReadLatestFailureFirstAndBounded(_ factory: StoreFactory) async throws {
        try await factory.withTwoStores { a, b in
            for (n, id) in ["f1", "f2", "f3", "ok", "waiting"].enumerated() {
                _ = try a.recordNotification(Self.notification(id, recordedAt: Self.seconds(Double(n))), targets: ["http://127.0.0.1:1/a"])
            }
            // Claimed oldest first and tried in turn, given up in another order (f1, f3, f2); "ok" is
            // delivered, "waiting" retried: neither is a failure.
            let outcomes: [(String, OutboxTryOutcome)] = [
                ("f1", .failed(at: Self.seconds(10), error: "answered 400")), ("f2", .failed(at: Self.seconds(30), error: "answered 410")),
                ("f3", .failed(at: Self.seconds(20), error: "answered 404")), ("ok", .delivered(at: Self.seconds(40))),
                ("waiting", .retry(next: Self.seconds(1_000), error: "answered 503")),
            ]
            for (id, outcome) in outcomes {
                let claimed = try #require(try a.claimNotification(claimant: "node-a", now: Self.seconds(5), until: Self.seconds(35)))
                #expect(claimed.id == id)
                try a.finishNotificationTry(id: claimed.id, target: claimed.target, claimant: "node-a", outcome: outcome)
            }
            #expect(try b.failedNotifications(limit: 10).map(\.id) == ["f2", "f3", "f1"])
            #expect(try b.failedNotifications(limit: 2).map(\.id) == ["f2", "f3"])
            let latest = try #require(try b.failedNotifications(limit: 1).first)
            #expect(latest.state == .failed && latest.lastError == "answered 410" && latest.finishedAt == Self.seconds(30) && latest.attempts == 1)
        }
    }

    @Test(arguments: storeFactories)
    func aQuietRecordIsNeverClaimed(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any EventStore) async throws in
            var quiet = Self.notification("q1", type: "sample_ratio_cleared")
            quiet.state = .quiet
            #expect(try store.recordNotification(quiet, targets: [""]) == 1)
            #expect(try store.claimNotification(claimant: "node-a", now: Self.seconds(10), until: Self.seconds(40)) == nil)
            #expect(try store.notifications(experiment: nil).map(\.state) == [.quiet])
        }
    }
}
