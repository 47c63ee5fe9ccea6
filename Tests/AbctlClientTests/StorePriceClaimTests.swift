@testable import AbctlClient
import ExperimentDefinitions
import Foundation
import PaywallCopy
import Testing
import TestSupport

/// The AbctlClient recomputes a paywall's discount text from the prices the store reports on the
/// device (`Decimal`, as StoreKit's `Product.price`) by the server's own rule.
@Suite struct StorePriceClaimTests {
    static let products: Products = {
        func plan(_ id: String, _ period: String, _ i: Int) -> Products.Plan {
            var prices: [String: Double] = [:]
            for (currency, pair) in StorefrontFixture.prices where currency != "USD" { prices[currency] = pair[i] }
            return Products.Plan(productID: id, price: StorefrontFixture.prices["USD"]![i], period: period, prices: prices)
        }
        return Products(currency: "USD", offerings: ["chorus_plus": ["monthly": plan("chorus.plus.monthly", "P1M", 0), "annual": plan("chorus.plus.annual", "P1Y", 1)]],
                        storefronts: ["JP": "JPY", "DE": "EUR", "GB": "GBP", "KR": "KRW"])
    }()

    static func serverAnswer(_ framing: DiscountFraming, currency: String) throws -> ResolvedPaywall {
        let paywall = Paywall(offering: "chorus_plus", trialDays: 3, discountFraming: framing, highlightedPlan: "annual", copy: .staticText("Hear every bird."))
        // Through JSON, as the app receives it.
        return try ResolvedPaywall(reading: PaywallResolver.resolve(paywall, products: products, request: PaywallRequest(), currency: currency).json)
    }

    /// StoreKit's prices as the store would report them: the same list prices, as Decimal.
    static func storePrices(_ currency: String) -> [String: Decimal] {
        let pair = StorefrontFixture.prices[currency]!
        return ["chorus.plus.monthly": Decimal(string: "\(pair[0])")!, "chorus.plus.annual": Decimal(string: "\(pair[1])")!]
    }

    @Test(arguments: ["USD", "EUR", "JPY", "GBP", "KRW"])
    func theClientsClaimIsTheServersAtTheSamePrices(currency: String) throws {
        for framing in [DiscountFraming.percentOff, .monthsFree, .perWeek] {
            let answer = try Self.serverAnswer(framing, currency: currency)
            #expect(answer.discountText == StorefrontFixture.claims[currency]?[framing.rawValue])
            let priced = answer.pricedByStore(Self.storePrices(currency), currency: currency)
            #expect(priced.discountText == StorefrontFixture.claims[currency]?[framing.rawValue], "\(currency) \(framing)")
            #expect(priced.plans.map(\.price) == StorefrontFixture.prices[currency]!)
        }
    }

    @Test func aStorePriceThatDiffersGivesTheClaimTrueAtIt() throws {
        // The server's default storefront says Save 49%; the device's store charges 1200 and 12000 yen:
        // 1 − 12000/14400 = 0.1667 → Save 16%; 12 − 10 = 2 → 2 months free; 12000/52 = 230.77 → ¥231.
        let store: [String: Decimal] = ["chorus.plus.monthly": 1200, "chorus.plus.annual": 12000]
        #expect(try Self.serverAnswer(.percentOff, currency: "USD").pricedByStore(store, currency: "JPY").discountText == "Save 16%")
        #expect(try Self.serverAnswer(.monthsFree, currency: "USD").pricedByStore(store, currency: "JPY").discountText == "2 months free")
        let week = try Self.serverAnswer(.perWeek, currency: "USD").pricedByStore(store, currency: "JPY")
        #expect(week.discountText == "¥231/week")
        #expect(week.plans.map(\.currency) == ["JPY", "JPY"] && week.plans.map(\.price) == [1200, 12000])
    }

    @Test func aClaimThatIsNoDiscountAtTheStoresPricesIsDropped() throws {
        // £5 and £60: exactly twelve months, so "Save 0%" would be untrue.
        let store: [String: Decimal] = ["chorus.plus.monthly": 5, "chorus.plus.annual": 60]
        #expect(try Self.serverAnswer(.percentOff, currency: "GBP").pricedByStore(store, currency: "GBP").discountText == nil)
        #expect(try Self.serverAnswer(.perWeek, currency: "GBP").pricedByStore(store, currency: "GBP").discountText == "£1.15/week")
        // The store did not price the monthly plan: the server's claim stays.
        let partial = try Self.serverAnswer(.percentOff, currency: "GBP").pricedByStore(["chorus.plus.annual": 60], currency: "GBP")
        #expect(partial.discountText == "Save 53%")
        #expect(partial.plans.map(\.price) == [8.99, 60])
    }
}
