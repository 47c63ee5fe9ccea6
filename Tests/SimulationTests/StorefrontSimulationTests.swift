import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import SQLiteStore
import Testing
import TestSupport
@testable import Simulation

/// Storefronts in simulation: `population.country` draws storefronts (US, CA and BR the
/// default; DE and FR EUR; GB, JP, KR their own), each payment arrives at its storefront's list
/// price in its currency and is stored converted with the amount paid kept; the report's revenue
/// per arm equals the hand conversion of those payments with products.json's rates.
@Suite struct StorefrontSimulationTests {
    /// StorefrontFixture's exchange_rates, written out again by hand.
    static let rates: [String: Double] = ["USD": 1, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "KRW": 0.00075]

    @Test func paymentsComeInTheStorefrontsCurrencyAndTheReportConvertsThem() throws {
        let folder = TemporaryFolder(prefix: "abctl-storefront-sim")
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try StorefrontFixture.productsJSON.write(toFile: folder.path + "/Experiments/products.json", atomically: true, encoding: .utf8)
        let paywall = #"{ "offering": "chorus_plus", "trial_days": 0, "discount_framing": "percent_off", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
        try """
        { "id": "priced", "name": "Storefront prices", "status": "running", "start": "2026-11-01T00:00:00Z",
          "metrics": { "primary": "paid_conversion", "guardrails": [] },
          "variants": [ { "key": "control", "paywall": \(paywall) }, { "key": "treatment", "paywall": \(paywall) } ] }
        """.write(toFile: folder.path + "/Experiments/priced.json", atomically: true, encoding: .utf8)
        let catalog = try ExperimentFiles.load(directory: folder.path + "/Experiments")
        let experiment = try #require(catalog.experiment("priced"))

        var truth = Truth()
        truth.defaultRates.directPurchase = 0.2
        truth.defaultRates.refund = 0
        truth.population.attributes = truth.population.attributes.map { name, values in
            name == "country" ? (name, [("US", 0.3), ("CA", 0.05), ("BR", 0.05), ("DE", 0.1), ("FR", 0.1), ("GB", 0.15), ("JP", 0.15), ("KR", 0.1)]) : (name, values)
        }
        let simulator = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth,
                                  options: .init(users: 6_000, seed: 38, days: 14, tailDays: 10))
        var events: [Event] = []
        _ = try simulator.run { batch in
            events += batch
            return AppendResult(stored: batch.count)
        }

        // Each user's arm and country, from the exposure (which carries the request's attributes).
        var arm: [UserID: String] = [:], country: [UserID: String] = [:]
        for e in events where e.type == .exposure {
            arm[e.userID] = e.variant
            if case .string(let c)? = e.attributes["country"] { country[e.userID] = c }
        }
        var hand: [String: Double] = [:]
        var byCurrency: [String: Int] = [:]
        for e in events where e.revenue != nil {
            let currency = try #require(StorefrontFixture.currencyOf[country[e.userID]])
            let paid = e.originalRevenue ?? e.revenue!
            #expect((e.originalCurrency ?? "USD") == currency, "\(e)")
            #expect(StorefrontFixture.prices[currency]!.contains(paid), "\(currency) \(paid)")
            #expect(e.currency == "USD")
            #expect(e.originalCurrency == nil || abs(e.revenue! - paid * Self.rates[currency]!) < 1e-9)
            hand[arm[e.userID]!, default: 0] += paid * Self.rates[currency]!
            byCurrency[currency, default: 0] += 1
        }
        #expect(Set(byCurrency.keys) == ["USD", "EUR", "GBP", "JPY", "KRW"], "\(byCurrency)")
        #expect(byCurrency.values.allSatisfy { $0 > 50 }, "\(byCurrency)")

        let store = try SQLiteEventStore(path: folder.path + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait(events)
        let report = try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(
            clock: simulator.observedUntil, segments: ["country"], minSegmentUsers: 50, products: catalog.products))
        for variant in report.figures.variants {
            let revenue = try #require(variant.metric(.named("revenue_per_user")))
            let expected = try #require(hand[variant.key])
            #expect(abs((revenue.sum ?? 0) - expected) < 1e-6 * expected, "\(variant.key): report \(revenue.sum ?? -1), by hand \(expected)")
            // Its claim per storefront (both arms say percent_off), in offer_mismatch and the health notes.
            let claims = try #require(report.figures.storefrontClaims.first { $0.variant == variant.key })
            #expect(claims.claims.map(\.text) == ["Save 49%", "Save 46%", "Save 53%", "Save 45%", "Save 41%"])
            #expect(claims.claims.map(\.countries) == [[], ["DE", "FR"], ["GB"], ["JP"], ["KR"]])
            #expect(claims.claim(country: "CA") == "Save 49%" && claims.claim(country: "JP") == "Save 45%")
            print("storefronts \(variant.key): report revenue \(revenue.sum ?? -1), hand conversion \(expected), payments by currency \(byCurrency)")
        }
        func member(_ v: JSONValue?, _ key: String) -> JSONValue? {
            if case .object(let members)? = v { return members.last { $0.0 == key }?.1 }
            return nil
        }
        let mismatch = member(member(member(JSONReportRenderer.value(report), "offer_mismatch"), "treatment"), "discount_claims")
        #expect(mismatch == .object([("default", .string("Save 49%")), ("DE", .string("Save 46%")), ("FR", .string("Save 46%")),
                                     ("GB", .string("Save 53%")), ("JP", .string("Save 45%")), ("KR", .string("Save 41%"))]), "\(String(describing: mismatch))")
        let note = report.health.first { $0.code == "storefront_claims" }
        #expect(note?.message == "“control” showed each storefront its own percent_off claim, computed from that storefront's prices: Save 49% in the default storefront (USD), Save 46% in DE, FR (EUR), Save 53% in GB (GBP), Save 45% in JP (JPY), Save 41% in KR (KRW).", "\(String(describing: note))")
        // --by country: the storefront's claims beside each country (the treatment's, then the control's),
        // in every format; the JSON's country cells name them per arm as `discount_text`.
        let text = TextReportRenderer.render(report, color: false)
        let jpRow = text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("JP ") }
        #expect(jpRow?.contains("treatment (Save 45%; control: Save 45%)") == true, "\(text)")
        #expect(text.contains("treatment (Save 49%; control: Save 49%)") && text.contains("treatment (Save 41%; control: Save 41%)"))
        let markdown = MarkdownReportRenderer.render(report), html = HTMLReportRenderer.render(report)
        for claim in ["Save 45%; control: Save 45%", "Save 53%; control: Save 53%"] {
            #expect(markdown.contains(claim) && html.contains(claim), "\(claim)")
        }
        let cells: [JSONValue]
        if case .array(let all)? = member(member(member(JSONReportRenderer.value(report), "segments"), "country"), "cells") { cells = all } else { cells = [] }
        var seenCountries: Set<String> = []
        for cell in cells {
            guard case .string(let value)? = member(cell, "value") else { continue }
            let claims = member(cell, "discount_text")
            if value == "other" {
                #expect(claims == nil, "the pooled cell mixes storefronts")
                continue
            }
            let currency = try #require(StorefrontFixture.currencyOf[value], "\(value)")
            let claim = JSONValue.string(StorefrontFixture.claims[currency]!["percent_off"]!)
            #expect(claims == .object([("control", claim), ("treatment", claim)]), "\(value): \(String(describing: claims))")
            seenCountries.insert(value)
        }
        #expect(seenCountries.isSuperset(of: ["US", "DE", "GB", "JP", "KR"]), "\(seenCountries)")
        let csv = CSVReportRenderer.render(report).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let header = csv[0].split(separator: ",").map(String.init)
        let column = try #require(header.firstIndex(of: "discount_text"))
        #expect(header[column - 1] == "value" && header.count == CSVReportRenderer.header.count)
        for row in csv.dropFirst() {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(fields.count >= header.count, "\(row)")   // more where a quoted reason holds a comma
            guard fields[column - 2] == "country", let currency = StorefrontFixture.currencyOf[fields[column - 1]] else {
                #expect(fields[column].isEmpty, "\(row)")
                continue
            }
            let claim = StorefrontFixture.claims[currency]!["percent_off"]!
            #expect(fields[column] == "\(claim); control: \(claim)", "\(row)")
        }
    }
}
