import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import SQLiteStore
import Testing
@testable import Simulation

/// People (one person, many ids), end to end through a store: 40,000 simulated users see the
/// paywall under an anonymous id; 60% log in after their exposure (`population.login`) and buy
/// under the known id (`purchase_under: "known"`). The truth: paid conversion 10% in the control,
/// 14% in the treatment (+4 points; no trial, so paid conversion is `direct_purchase`). With the
/// `identified` events the report recovers both arms within their 95% intervals; the same events
/// without them lose the logged-in buyers (about 40% of the truth is left) and every interval
/// falls short of it.
@Suite struct PeopleSimulationTests {
    static let truths = ["control": 0.10, "treatment": 0.14]

    @Test func identifiesRecoverPaidConversionAndWithoutThemItIsUndercounted() throws {
        let folder = NSTemporaryDirectory() + "abctl-people-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        try FileManager.default.createDirectory(atPath: folder + "/Experiments", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root.path + "/Experiments/products.json", toPath: folder + "/Experiments/products.json")
        let arm = #"{ "offering": "chorus_plus", "trial_days": 0, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
        try """
        { "id": "people-paid", "name": "Sign-up paywall", "status": "running", "start": "2026-11-01T00:00:00Z",
          "metrics": { "primary": "paid_conversion", "guardrails": [] },
          "variants": [ { "key": "control", "paywall": \(arm) }, { "key": "treatment", "paywall": \(arm) } ] }
        """.write(toFile: folder + "/Experiments/people-paid.json", atomically: true, encoding: .utf8)
        let catalog = try ExperimentFiles.load(directory: folder + "/Experiments")
        let experiment = try #require(catalog.experiment("people-paid"))

        var truth = Truth()
        truth.defaultRates.directPurchase = Self.truths["control"]!
        var treatment = truth.defaultRates
        treatment.directPurchase = Self.truths["treatment"]!
        truth.variants = ["people-paid": ["treatment": treatment]]
        truth.variantKeys = ["people-paid": ["treatment": ["direct_purchase"]]]
        truth.population.login = 0.6
        truth.population.purchaseUnder = .known

        let simulator = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth,
                                  options: .init(users: 40_000, seed: 37, days: 14, tailDays: 10))
        var events: [Event] = []
        _ = try simulator.run { batch in
            events += batch
            return AppendResult(stored: batch.count)
        }
        let identifies = events.filter { $0.type == .identified }.count
        #expect(abs(Double(identifies) / 40_000 - 0.6) < 0.02, "\(identifies) log-ins")

        func report(_ events: [Event], file: String) throws -> Report {
            let store = try SQLiteEventStore(path: folder + "/" + file)
            defer { store.close() }
            var rest = events[...]
            while !rest.isEmpty {
                _ = try store.appendAndWait(Array(rest.prefix(20_000)))
                rest = rest.dropFirst(20_000)
            }
            return try ReportBuilder.report(source: store, experiment: experiment, options: ReportOptions(clock: simulator.observedUntil))
        }
        let withLinks = try report(events, file: "people.sqlite")
        let withoutLinks = try report(events.filter { $0.type != .identified }, file: "ids.sqlite")
        #expect(withLinks.figures.users == 40_000 && withoutLinks.figures.users == 40_000)
        for variant in withLinks.figures.variants {
            let truth = try #require(Self.truths[variant.key])
            let m = try #require(variant.metric(.named("paid_conversion")))
            let ci = try #require(m.ci)
            #expect(ci.lower <= truth && truth <= ci.upper, "\(variant.key): \(m.rate ?? -1) [\(ci.lower), \(ci.upper)] vs true \(truth)")
            let without = try #require(withoutLinks.figures.variants.first { $0.key == variant.key }?.metric(.named("paid_conversion")))
            let short = try #require(without.ci)
            #expect(short.upper < truth, "\(variant.key) without identifies: \(without.rate ?? -1) [\(short.lower), \(short.upper)] vs true \(truth)")
            #expect(abs((without.rate ?? 0) - 0.4 * truth) < 0.015, "\(variant.key) without identifies keeps the 40% who never log in")
            print("people \(variant.key): true \(truth), with identifies \(m.rate ?? -1) [\(ci.lower), \(ci.upper)], without \(without.rate ?? -1) [\(short.lower), \(short.upper)]")
        }
        let lift = try #require(withLinks.comparison("treatment", .named("paid_conversion")))
        let diff = try #require(lift.absoluteCI)
        #expect(diff.lower <= 0.04 && 0.04 <= diff.upper, "difference interval [\(diff.lower), \(diff.upper)] vs true +0.04")
    }
}
