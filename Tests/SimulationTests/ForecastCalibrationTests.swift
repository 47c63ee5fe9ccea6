import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Statistics
import Testing
@testable import Simulation

/// The forecast against the truth, in the suite's budget: the small version of tools/forecast_calibration.py
/// (which runs 200 seeds through the built binary; its figures are in docs/Forecast.md).
///
/// Each seed simulates a 3-day and a 7-day arm on monthly plans whose payers churn with a probability per
/// month from Beta(1.5, 6) and Beta(1, 3) (the model's own assumption), users arriving over 60 days; the
/// forecast is made as of day 90 (ForecastAccumulator over each user's facts, as every store computes them)
/// and compared with the true 365-day revenue per user computed from the truth. 16 seeds give 32 intervals:
/// too few to tell 90% from 85% coverage (the script's job), enough to catch a broken forecast.
@Suite struct ForecastCalibrationTests {
    static let arms: [(key: String, trialDays: Int, alpha: Double, beta: Double)] = [("trial-3d", 3, 1.5, 6), ("trial-7d", 7, 1, 3)]

    static func catalog(in folder: String) throws -> ExperimentCatalog {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        // The shipped plans in one currency: the default population draws GB, DE and FR users, who
        // would pay their storefront's prices, and the truth below is computed at the USD price.
        var products = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: url.path + "/Experiments/products.json"))) as? [String: Any])
        products["storefronts"] = nil
        try JSONSerialization.data(withJSONObject: products).write(to: URL(fileURLWithPath: folder + "/products.json"))
        let variants = arms.map { a in
            #"{ "key": "\#(a.key)", "paywall": { "offering": "chorus_plus", "trial_days": \#(a.trialDays), "discount_framing": "none", "copy": { "strategy": "static", "text": "x" } } }"#
        }.joined(separator: ", ")
        try #"{ "id": "fc", "name": "forecast", "status": "running", "start": "2026-01-01T00:00:00Z", "variants": [\#(variants)] }"#
            .write(toFile: folder + "/fc.json", atomically: true, encoding: .utf8)
        return try ExperimentFiles.load(directory: folder)
    }

    /// P(paid)·(1 − refund)·price·Σ_{j < J} S(j), for trial payers (first payment at the trial's end) and direct buyers.
    static func trueRevenuePerUser(_ rates: Truth.Rates, trialDays: Int, model: ShiftedBetaGeometric, price: Double) -> Double {
        let trialPayers = rates.trialStart * (1 - rates.day0Cancel) * (1 - rates.laterCancel) * rates.convert
        let directPayers = (1 - rates.trialStart) * rates.directPurchase
        func payments(firstDay: Double) -> Double {
            let due = Int(((365 - firstDay) / 30).rounded(.down)) + 1
            return (0..<due).reduce(0) { $0 + model.survival($1) }
        }
        return (1 - rates.refund) * price * (trialPayers * payments(firstDay: Double(trialDays) + 0.01) + directPayers * payments(firstDay: 0.02))
    }

    @Test func intervalsCoverTheTruthAndErrorsAreSmall() throws {
        let folder = NSTemporaryDirectory() + "abctl-fc-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try Self.catalog(in: folder)
        let experiment = try #require(catalog.experiment("fc"))
        var truth = Truth()
        truth.defaultRates.annualShare = 0
        var table: [String: Truth.Rates] = [:]
        for a in Self.arms {
            var r = truth.defaultRates
            r.renewalChurn = .init(alpha: a.alpha, beta: a.beta)
            table[a.key] = r
        }
        truth.variants["fc"] = table
        let price = try #require(catalog.products.offerings["chorus_plus"]?["monthly"]?.price)
        let trueValue = Self.arms.map { a in
            Self.trueRevenuePerUser(truth.defaultRates, trialDays: a.trialDays, model: ShiftedBetaGeometric(alpha: a.alpha, beta: a.beta), price: price)
        }
        var covered = 0, errors: [Double] = []
        for seed in UInt64(1)...16 {
            let simulator = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth,
                                      options: .init(users: 6000, seed: seed, days: 60, tailDays: 40))
            var byUser: [UserID: [Event]] = [:]
            _ = try simulator.run { batch in
                for e in batch { byUser[e.userID, default: []].append(e) }
                return AppendResult(stored: batch.count)
            }
            var acc = ForecastAccumulator(experiment: experiment, products: catalog.products, asOf: simulator.start.addingTimeInterval(90 * 86_400))
            for user in byUser.keys.sorted() {
                for f in FactsBuilder.facts(userID: user, events: byUser[user]!) { acc.add(f) }
            }
            let forecasts = try #require(try ForecastAnalysis.forecast(acc))
            for (i, f) in forecasts.enumerated() {
                let value = try #require(f.revenuePerUser, "seed \(seed) \(f.variant): \(f.nullReason ?? "")")
                let ci = try #require(f.ci)
                if ci.contains(trueValue[i]) { covered += 1 }
                errors.append(value / trueValue[i] - 1)
            }
        }
        let medianError = errors.map(abs).sorted()[errors.count / 2]
        print("forecast calibration (in suite): 90% intervals covered the truth in \(covered) of \(errors.count); median |error| \(String(format: "%.3f", medianError))")
        // 32 intervals: at a true 90%, 24 or fewer covering happens about once in 100 runs.
        #expect(covered >= 25, "\(covered) of \(errors.count) intervals covered the truth")
        #expect(medianError < 0.1, "median |error| \(medianError)")
    }
}
