import Events
import ExperimentDefinitions
import Foundation
import Testing
@testable import Reporting

/// `abctl report`'s health says `unmatched_store_payments` when more than 1% of the App
/// Store and Google Play payments in the experiment's dates are under a store token no exposure
/// named, in every format; at 1% or less it says nothing.
@Suite struct UnmatchedStorePaymentsTests {
    typealias F = Fixtures

    func report(matched: Int, unmatched: Int) throws -> Report {
        func at(_ hours: Double) -> Timestamp { Timestamp(microseconds: F.start + Int64(hours * 3_600_000_000)) }
        var events: [Event] = []
        for u in 0..<matched {
            let user = UserID("u\(u)")
            events.append(Event(id: "x", type: .exposure, userID: user, timestamp: at(1), experiment: "exp", variant: u % 2 == 0 ? "control" : "ai"))
            events.append(Event(id: "p", type: .purchased, userID: user, timestamp: at(2), revenue: 9.99, currency: "USD", store: .appStore, proceeds: 6.99))
        }
        for u in 0..<unmatched {
            let token = UserID(String(format: "%08x-0000-4000-8000-%012x", u, u))
            events.append(Event(id: "p", type: .purchased, userID: token, timestamp: at(3), revenue: 9.99, currency: "USD", store: .appStore, proceeds: 6.99))
        }
        return try F.storeReport(events)
    }

    @Test func moreThanOnePercentIsAWarningInEveryFormat() throws {
        let r = try report(matched: 196, unmatched: 4)
        let note = try #require(r.health.first { $0.code == "unmatched_store_payments" })
        #expect(note.level == .warning)
        #expect(note.message.hasPrefix("4 of 200 App Store and Google Play payments in the experiment's dates (2.0%)"), "\(note.message)")
        // The JSON entry carries what it counts.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReportRenderer.render(r).utf8)) as? [String: Any])
        let entry = try #require((json["health"] as? [[String: Any]])?.first { $0["code"] as? String == "unmatched_store_payments" })
        #expect(entry["count"] as? Int == 4, "\(entry)")
        for (format, text) in F.readableFormats(r) {
            #expect(text.contains("under a store token no exposure has named"), "\(format)")
        }
    }

    @Test func onePercentOrLessSaysNothing() throws {
        let r = try report(matched: 198, unmatched: 2)
        #expect(!r.health.contains { $0.code == "unmatched_store_payments" })
    }
}
