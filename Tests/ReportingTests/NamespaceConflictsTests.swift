import Events
import ExperimentDefinitions
import Foundation
import SQLiteStore
import Testing
@testable import Reporting

/// A namespace keeps people apart, yet a person exposed to two experiments of one namespace anyway
/// (two ids exposed before they were linked) counts in the one it saw first only, and each report's
/// health counts such people (`namespace_conflicts`).
@Suite struct NamespaceConflictsTests {
    typealias F = Fixtures

    static func experiment(_ id: String, _ start: Double, _ end: Double) -> Experiment {
        var e = F.experiment(id: id)
        e.namespace = Namespace(id: "paywall", start: start, end: end)
        return e
    }

    /// 40 users of each experiment's own; 3 people who saw "left" first (an anonymous id), then
    /// "right" (their account), then logged in; 2 who saw "right" first.
    static func events() -> [Event] {
        func at(_ hours: Double) -> Timestamp { Timestamp(microseconds: F.start + Int64(hours * 3_600_000_000)) }
        func exposure(_ user: String, _ experiment: String, _ arm: String, _ hours: Double) -> Event {
            Event(id: "x-\(experiment)", type: .exposure, userID: UserID(user), timestamp: at(hours), experiment: experiment, variant: arm)
        }
        var events: [Event] = []
        for u in 0..<40 {
            let arm = u % 2 == 0 ? "control" : "ai"
            events += [exposure("left-\(u)", "left", arm, 1), exposure("right-\(u)", "right", arm, 1)]
        }
        for (first, second, n) in [("left", "right", 3), ("right", "left", 2)] {
            for u in 0..<n {
                let anon = "anon-\(first)-\(u)", account = "acct-\(first)-\(u)"
                events += [exposure(anon, first, "control", 1), exposure(account, second, "ai", 2),
                           Event(id: "i", type: .identified, userID: UserID(anon), timestamp: at(3), identity: UserID(account))]
            }
        }
        return events
    }

    @Test func eachPersonCountsInTheExperimentItSawFirstAndHealthCountsThem() throws {
        let left = Self.experiment("left", 0, 0.5), right = Self.experiment("right", 0.5, 1)
        let catalog = ExperimentCatalog(experiments: [left, right], products: Products(currency: "USD", offerings: [:]))
        var options = ReportOptions(clock: F.date(F.start + 30 * F.day))
        options.readNamespaces(of: catalog)
        #expect(options.namespaceNeighbours == ["left": ["right"], "right": ["left"]])

        let dir = NSTemporaryDirectory() + "abctl-namespace-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventStore(path: dir + "/events.sqlite")
        defer { store.close() }
        _ = try store.appendAndWait(Self.events())

        for (e, users, leftOut) in [(left, 43, 2), (right, 42, 3)] {
            let r = try ReportBuilder.report(source: store, experiment: e, options: options)
            #expect(r.users == users, "\(e.id): \(r.users)")
            let note = try #require(r.health.first { $0.code == "namespace_conflicts" }, "\(e.id)")
            #expect(note.level == .warning && note.count == 5, "\(e.id): \(note)")
            #expect(note.message.contains("\(leftOut) of them"), "\(e.id): \(note.message)")
            #expect(JSONReportRenderer.render(r).contains("\"namespace_conflicts\""))
            for (format, text) in F.readableFormats(r) { #expect(text.contains("another of its namespace"), "\(format)") }
        }
        // Without the folder's namespaces nobody is left out and nothing is said.
        let alone = try ReportBuilder.report(source: store, experiment: left, options: ReportOptions(clock: F.date(F.start + 30 * F.day)))
        #expect(alone.users == 45 && !alone.health.contains { $0.code == "namespace_conflicts" })
    }
}
