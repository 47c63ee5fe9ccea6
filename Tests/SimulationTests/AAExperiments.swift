import Assignment
import Events
import ExperimentDefinitions
import Foundation
import Reporting
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
            var acc = ReportAccumulator(experiment: experiment, options: ReportOptions(generatedAt: simulator.observedUntil, segments: segments))
            for f in facts[experiment.id] ?? [] { acc.add(f) }
            return try ReportAnalyzer.analyze(acc)
        }
    }
}
