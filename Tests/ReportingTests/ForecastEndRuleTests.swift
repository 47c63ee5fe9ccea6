import Events
import ExperimentDefinitions
import Foundation
@testable import Reporting
import Testing

/// The forecast reads the one end rule: a payer has churned at an `expired` (other than a pause) or a
/// cancel that stood after the last payment, before any payment is overdue; an undone cancel and a
/// pause leave the payer censored.
@Suite struct ForecastEndRuleTests {
    static let origin = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!
    static func at(_ hours: Double) -> Timestamp { origin.adding(hours: hours) }
    static let products = Products(currency: "USD", offerings: ["chorus_plus": [
        "monthly": .init(productID: "chorus.plus.monthly", price: 9.99, period: "P1M"),
    ]])
    static let experiment = Experiment(id: "end", name: "End rule", status: .running,
                                       variants: [Variant(key: "control", paywall: Paywall(offering: "chorus_plus", trialDays: 0, copy: .staticText("Hi.")))])

    /// A payer who paid at hours 1 and 721 (two months), then what `after` says, read 10 days after the
    /// second payment: the third payment is not overdue yet.
    static func churned(_ after: [(EventType, Double, ExpiryReason?)]) throws -> Bool {
        var events = [Event(id: "x", type: .exposure, userID: "u", timestamp: at(0), experiment: "end", variant: "control")]
        for (n, hours) in [1.0, 721].enumerated() {
            events.append(Event(id: EventID("p\(n)"), type: n == 0 ? .purchased : .renewed, userID: "u", timestamp: at(hours),
                                revenue: 9.99, currency: "USD", productID: "chorus.plus.monthly"))
        }
        for (n, (type, hours, reason)) in after.enumerated() {
            events.append(Event(id: EventID("l\(n)"), type: type, userID: "u", timestamp: at(hours), reason: reason))
        }
        var acc = ForecastAccumulator(experiment: experiment, products: products, asOf: at(721 + 240).date)
        for f in FactsBuilder.facts(userID: "u", events: events) { acc.add(f) }
        let payer = try #require(acc.cells[0].keys.first { $0.payments == 2 })
        return payer.churned
    }

    @Test func anExpiryOrACancelThatStoodIsChurn() throws {
        #expect(try !Self.churned([]))
        #expect(try Self.churned([(.expired, 730, .billing)]))
        #expect(try Self.churned([(.expired, 730, .voluntary)]))
        #expect(try Self.churned([(.cancelled, 725, nil)]))
    }

    @Test func anUndoneCancelOrAPauseIsNoChurn() throws {
        #expect(try !Self.churned([(.cancelled, 725, nil), (.uncancelled, 728, nil)]))
        #expect(try !Self.churned([(.expired, 730, .paused)]))
        // A billing issue alone is not an end: the store may still recover the charge.
        #expect(try !Self.churned([(.billingIssue, 730, nil)]))
    }

    /// The end after the last payment is a re-subscription's when the first subscription ended before it:
    /// cancelled and expired before the payment at hour 721 (a new purchase), then ended again.
    @Test func aReSubscriptionsEndIsChurn() throws {
        let firstEnd: [(EventType, Double, ExpiryReason?)] = [(.cancelled, 300, nil), (.expired, 600, .voluntary)]
        #expect(try !Self.churned(firstEnd))
        #expect(try Self.churned(firstEnd + [(.cancelled, 800, nil), (.expired, 900, .voluntary)]))
        #expect(try Self.churned(firstEnd + [(.cancelled, 800, nil)]))
        #expect(try Self.churned(firstEnd + [(.expired, 900, .billing)]))
        #expect(try !Self.churned(firstEnd + [(.cancelled, 800, nil), (.uncancelled, 810, nil)]))
    }

    /// Read as of hour 961: a cancel undone only later stood then.
    @Test func aCancelUndoneAfterTheMomentStoodThen() throws {
        #expect(try Self.churned([(.cancelled, 725, nil), (.uncancelled, 1000, nil)]))
    }
}
