import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
import Testing
@testable import Simulation

/// What the A/A calibrations share: `count` identical two-arm experiments (`aa-0`…, arms `a` and
/// `b` with the same paywall, each its own hash seed, so every user is in all of them and their
/// splits are independent), simulated through the real assignment, each user's facts built by
/// `FactsBuilder` as every store builds them, and a report per experiment.
struct AAExperiments {
    let catalog: ExperimentCatalog
    let assigner: Assigner
    private let folder: String

    /// `metrics`: the experiments' `metrics` object, as JSON.
    init(count: Int, metrics: String) throws {
        folder = NSTemporaryDirectory() + "abctl-aa-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        try FileManager.default.copyItem(atPath: url.path + "/Experiments/products.json", toPath: folder + "/products.json")
        let arm = #"{ "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "Hear every bird." } }"#
        for k in 0..<count {
            try """
            { "id": "aa-\(k)", "name": "A/A \(k)", "status": "running", "start": "2026-12-01T00:00:00Z",
              "metrics": \(metrics),
              "variants": [ { "key": "a", "paywall": \(arm) }, { "key": "b", "paywall": \(arm) } ] }
            """.write(toFile: folder + "/aa-\(k).json", atomically: true, encoding: .utf8)
        }
        catalog = try ExperimentFiles.load(directory: folder)
        assigner = try Assigner(catalog: catalog)
    }

    func removeFolder() { try? FileManager.default.removeItem(atPath: folder) }

    /// One seed's reports, one per experiment, in catalog order. With `people`, the `identified`
    /// events join ids into persons (`IdentityGraph`, in the order simulated) and each person's facts
    /// come from all of its ids' events (`FactsBuilder.facts(person:members:)`), as the stores keep them.
    func reports(truth: Truth = Truth(), options: Simulator.Options, segments: [String] = [], people: Bool = false) throws -> [Report] {
        let simulator = Simulator(catalog: catalog, assigner: assigner, truth: truth, options: options)
        var byUser: [UserID: [Event]] = [:]
        var graph = IdentityGraph()
        _ = try simulator.run { batch in
            for e in batch {
                byUser[e.userID, default: []].append(e)
                if people { graph.record(e) }
            }
            return AppendResult(stored: batch.count)
        }
        var facts: [String: [UserFacts]] = [:]
        if people {
            var members: [UserID: [UserID]] = [:]
            for user in byUser.keys.sorted() { members[graph.person(of: user), default: []].append(user) }
            for person in members.keys.sorted() {
                let sources = members[person]!.map { id in (id: id, events: byUser[id]!.map(FactsBuilder.Source.init)) }
                for f in FactsBuilder.facts(person: person, members: sources) { facts[f.experiment, default: []].append(f) }
            }
        } else {
            for user in byUser.keys.sorted() {
                for f in FactsBuilder.facts(userID: user, events: byUser[user]!) { facts[f.experiment, default: []].append(f) }
            }
        }
        return try catalog.experiments.map { experiment in
            var acc = ReportAccumulator(experiment: experiment, options: ReportOptions(clock: simulator.observedUntil, segments: segments))
            for f in facts[experiment.id] ?? [] { acc.add(f) }
            return try ReportAnalyzer.analyze(acc)
        }
    }
}

/// An A/A run's comparisons of variant "b" against the control, per metric: how many a 5% test
/// flagged and how many 95% intervals covered the true difference, 0; `check` holds them to 5%
/// and 95% within `tolerance`.
struct AATally {
    let metrics: [String]
    private var flagged: [String: Int] = [:], covered: [String: Int] = [:], compared: [String: Int] = [:]

    init(metrics: [String]) { self.metrics = metrics }

    /// ±1.5 points at 1,000 comparisons per metric (2.2 standard errors of a 5% share), the same
    /// number of standard errors at fewer.
    static func tolerance(comparisons: Int) -> Double { 0.015 * (1000 / Double(comparisons)).squareRoot() }

    mutating func record(_ report: Report, seed: UInt64) throws {
        for name in metrics {
            let c = try #require(report.comparison("b", .named(name)), "\(name) missing")
            let p = try #require(c.pValue, "seed \(seed) \(report.figures.experimentID) \(name): \(c.nullReasons)")
            let ci = try #require(c.absoluteCI)
            compared[name, default: 0] += 1
            if p < 0.05 { flagged[name, default: 0] += 1 }
            if ci.contains(0) { covered[name, default: 0] += 1 }
        }
    }

    /// Expects `comparisons` per metric, then the 5% and 95% within `tolerance`; prints each
    /// metric's figures after `label` (and `detail`).
    func check(comparisons: Int, tolerance: Double, label: String, detail: String = "") {
        for name in metrics {
            let n = Double(compared[name] ?? 0)
            #expect(n == Double(comparisons))
            let falsePositives = Double(flagged[name] ?? 0) / n, coverage = Double(covered[name] ?? 0) / n
            #expect(abs(falsePositives - 0.05) <= tolerance, "\(name): \(flagged[name] ?? 0) of \(Int(n)) flagged at 5%")
            #expect(abs(coverage - 0.95) <= tolerance, "\(name): 95% intervals covered 0 in \(covered[name] ?? 0) of \(Int(n))")
            print("\(label) \(name): \(flagged[name] ?? 0) of \(Int(n)) false positives at 5% (\(String(format: "%.1f", 100 * falsePositives))%), 95% intervals covered 0 in \(String(format: "%.1f", 100 * coverage))%\(detail)")
        }
    }
}
