import Events
import Foundation
import PostgresStore
import Testing
import TestSupport

/// One node at a time evaluates safeguards on PostgreSQL: a session advisory lock.
@Suite struct SafeguardLeaseTests {
    @Test func aSecondNodeIsRefusedWhileTheFirstHoldsTheLeaseAndGetsItAfter() async throws {
        try await withPostgresStore { first, url in
            let second = try PostgresEventStore(url: url)
            defer { second.close() }
            let inner = try first.withSafeguardLease { try second.withSafeguardLease { "second ran" } }
            #expect(inner == .some(nil))   // the first ran; the second was refused inside it
            #expect(try second.withSafeguardLease { "second ran" } == "second ran")
            #expect(try first.withSafeguardLease { "first ran" } == "first ran")
        }
    }
}
