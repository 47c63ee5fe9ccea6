import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// `validate --against REF`: a table of edits to a running experiment, each field
/// in both directions, through REF as a folder and as a git revision of a temporary repository. Each
/// reshuffling edit is an error whose share is checked against a brute-force count over 100,000
/// hashed ids through the Assigner; each widening passes; each paywall edit is a warning.
@Suite struct AgainstTests {
    /// One version of the experiment file, built field by field.
    struct Spec {
        var status = "running"
        var variants: [(key: String, weight: Double, trial: Int, offering: String, framing: String, text: String)] = [
            ("control", 1, 3, "chorus_plus", "none", "Hear every bird."), ("name", 1, 3, "chorus_plus", "none", "Hear every bird."),
            ("ai", 1, 7, "chorus_plus", "none", "Hear every bird.")]
        var seed: String? = nil
        var hashVersion = 2
        var coverage = 1.0
        var namespace: (id: String, start: Double, end: Double)? = ("paywall", 0, 0.5)
        var targeting = #"{ "platform": ["ios"], "app_version": ">=2.1.0" }"#
        var condition: String? = nil
        var rollout: String? = nil
        var start = "2026-12-01T00:00:00Z"
        var end: String? = nil
        var metrics = #"{ "primary": "paid_conversion" }"#
        var extra = ""

        var json: String {
            var lines = [#""id": "exp-a""#, #""name": "A""#, #""status": "\#(status)""#, #""start": "\#(start)""#,
                         #""hash_version": \#(hashVersion)"#, #""coverage": \#(coverage)"#, #""targeting": \#(targeting)"#,
                         #""metrics": \#(metrics)"#]
            if let end { lines.append(#""end": "\#(end)""#) }
            if let seed { lines.append(#""seed": "\#(seed)""#) }
            if let namespace { lines.append(#""namespace": { "id": "\#(namespace.id)", "range": [\#(namespace.start), \#(namespace.end)] }"#) }
            if let condition { lines.append(#""condition": \#(condition)"#) }
            if let rollout { lines.append(#""rollout": \#(rollout)"#) }
            if !extra.isEmpty { lines.append(extra) }
            let variants = self.variants.map { v in
                #"{ "key": "\#(v.key)", "weight": \#(v.weight), "paywall": { "offering": "\#(v.offering)", "trial_days": \#(v.trial), "#
                    + #""discount_framing": "\#(v.framing)", "copy": { "strategy": "static", "text": "\#(v.text)" } } }"#
            }
            lines.append("\"variants\": [\n    " + variants.joined(separator: ",\n    ") + "\n  ]")
            return "{\n  " + lines.joined(separator: ",\n  ") + "\n}\n"
        }
    }

    enum Expect: CustomStringConvertible {
        case passes
        /// `reshuffles_running_experiment` naming the field; `computed`: the share is a number (else null).
        case reshuffles(String, computed: Bool)
        /// `running_arm_changed` naming the field.
        case warns(String)
        /// `running_metrics_changed` naming the fields.
        case judged([String])

        var description: String {
            switch self {
            case .passes: "passes"
            case .reshuffles(let f, let computed): "reshuffles \(f)\(computed ? "" : " (share null)")"
            case .warns(let f): "warns \(f)"
            case .judged(let f): "judged by other \(f)"
            }
        }
    }

    struct Edit: CustomStringConvertible, Sendable {
        var name: String
        var a: @Sendable (inout Spec) -> Void
        var b: @Sendable (inout Spec) -> Void
        var aToB: Expect
        var bToA: Expect
        var description: String { name }
    }

    static let bandit = #""sticky": true, "allocation": { "type": "bandit", "reward": "trial_start_rate", "min_share": 0.1 }"#
    static let rollout24h = #"{ "stages": [ { "share": 0.5, "hours": 24 }, { "share": 1.0 } ] }"#
    static let safeguards = #""safeguards": { "metrics": ["day0_cancel_rate"], "action": "stop_arm", "alpha": 0.05, "min_users": 300, "check_minutes": 60 }"#
    static let edits: [Edit] = [
        Edit(name: "a weight", a: { _ in }, b: { $0.variants[0].weight = 2 },
             aToB: .reshuffles("variants[0].weight", computed: true), bToA: .reshuffles("variants[0].weight", computed: true)),
        Edit(name: "weights scaled together", a: { _ in }, b: { s in for i in s.variants.indices { s.variants[i].weight = 2 } },
             aToB: .passes, bToA: .passes),
        Edit(name: "variants reordered", a: { _ in }, b: { $0.variants.swapAt(1, 2) },
             aToB: .reshuffles("variants", computed: true), bToA: .reshuffles("variants", computed: true)),
        Edit(name: "a variant added or removed", a: { $0.variants.removeLast() }, b: { _ in },
             aToB: .reshuffles("variants", computed: true), bToA: .reshuffles("variants", computed: true)),
        Edit(name: "seed", a: { _ in }, b: { $0.seed = "exp-a-2" },
             aToB: .reshuffles("seed", computed: true), bToA: .reshuffles("seed", computed: true)),
        Edit(name: "hash_version", a: { _ in }, b: { $0.hashVersion = 1 },
             aToB: .reshuffles("hash_version", computed: true), bToA: .reshuffles("hash_version", computed: true)),
        Edit(name: "namespace id", a: { _ in }, b: { $0.namespace?.id = "paywall-2" },
             aToB: .reshuffles("namespace.id", computed: true), bToA: .reshuffles("namespace.id", computed: true)),
        Edit(name: "namespace range narrowed or widened", a: { _ in }, b: { $0.namespace?.end = 0.25 },
             aToB: .reshuffles("namespace.range", computed: true), bToA: .passes),
        Edit(name: "namespace range moved", a: { _ in }, b: { $0.namespace = ("paywall", 0.5, 1) },
             aToB: .reshuffles("namespace.range", computed: true), bToA: .reshuffles("namespace.range", computed: true)),
        Edit(name: "namespace added or removed", a: { $0.namespace = nil }, b: { _ in },
             aToB: .reshuffles("namespace", computed: true), bToA: .passes),
        Edit(name: "coverage", a: { _ in }, b: { $0.coverage = 0.5 },
             aToB: .reshuffles("coverage", computed: true), bToA: .passes),
        Edit(name: "a rollout stage's share", a: { $0.rollout = rollout24h }, b: { $0.rollout = rollout24h.replacingOccurrences(of: "0.5", with: "0.25") },
             aToB: .reshuffles("rollout.stages[0]", computed: true), bToA: .passes),
        Edit(name: "targeting list", a: { _ in }, b: { $0.targeting = #"{ "platform": ["ios", "android"], "app_version": ">=2.1.0" }"# },
             aToB: .passes, bToA: .reshuffles("targeting.platform", computed: false)),
        Edit(name: "targeting key", a: { _ in }, b: { $0.targeting = #"{ "platform": ["ios"] }"# },
             aToB: .passes, bToA: .reshuffles("targeting.app_version", computed: false)),
        Edit(name: "targeting app_version bound", a: { _ in }, b: { $0.targeting = #"{ "platform": ["ios"], "app_version": ">=2.0" }"# },
             aToB: .passes, bToA: .reshuffles("targeting.app_version", computed: false)),
        Edit(name: "condition", a: { _ in }, b: { $0.condition = #"{ "country": { "$in": ["GB"] } }"# },
             aToB: .reshuffles("condition", computed: false), bToA: .passes),
        Edit(name: "condition $in list", a: { $0.condition = #"{ "country": { "$in": ["GB"] } }"# },
             b: { $0.condition = #"{ "country": { "$in": ["GB", "US"] } }"# },
             aToB: .passes, bToA: .reshuffles("condition", computed: false)),
        Edit(name: "an arm's paywall", a: { _ in }, b: { $0.variants[2].trial = 14 },
             aToB: .warns("variants[2].paywall.trial_days"), bToA: .warns("variants[2].paywall.trial_days")),
        Edit(name: "an arm's copy", a: { _ in }, b: { $0.variants[1].text = "Hear every song." },
             aToB: .warns("variants[1].paywall.copy"), bToA: .warns("variants[1].paywall.copy")),
        Edit(name: "an arm's discount framing", a: { _ in }, b: { $0.variants[0].framing = "per_week" },
             aToB: .warns("variants[0].paywall.discount_framing"), bToA: .warns("variants[0].paywall.discount_framing")),
        Edit(name: "an arm's offering", a: { _ in }, b: { $0.variants[0].offering = "flat" },
             aToB: .warns("variants[0].paywall.offering"), bToA: .warns("variants[0].paywall.offering")),
        Edit(name: "allocation", a: { $0.extra = bandit }, b: { $0.extra = bandit.replacingOccurrences(of: "0.1", with: "0.2") },
             aToB: .reshuffles("allocation", computed: false), bToA: .reshuffles("allocation", computed: false)),
        Edit(name: "stopped", a: { _ in }, b: { $0.status = "stopped" }, aToB: .passes, bToA: .passes),
        Edit(name: "paused", a: { _ in }, b: { $0.status = "paused" }, aToB: .passes, bToA: .passes),
        Edit(name: "shipped", a: { _ in }, b: { $0.status = "shipped"; $0.extra = #""winner": "ai", "end": "2026-12-01T06:00:00Z""# },
             aToB: .passes, bToA: .passes),
        Edit(name: "draft", a: { _ in }, b: { $0.status = "draft" }, aToB: .reshuffles("status", computed: true), bToA: .passes),
        // Every enrolled user is answered `outside_dates`; a start still ahead at REF enrolled nobody.
        Edit(name: "start moved after now", a: { _ in }, b: { $0.start = "2026-12-02T00:00:00Z" },
             aToB: .reshuffles("start", computed: true), bToA: .passes),
        Edit(name: "start moved under allocation", a: { $0.extra = bandit }, b: { $0.extra = bandit; $0.start = "2026-11-30T00:00:00Z" },
             aToB: .reshuffles("start", computed: false), bToA: .reshuffles("start", computed: false)),
        Edit(name: "end moved before now", a: { _ in }, b: { $0.end = "2026-12-01T06:00:00Z" },
             aToB: .reshuffles("end", computed: true), bToA: .passes),
        Edit(name: "end moved later", a: { $0.end = "2026-12-20T00:00:00Z" }, b: { $0.end = "2026-12-27T00:00:00Z" },
             aToB: .passes, bToA: .passes),
        Edit(name: "the primary metric", a: { _ in }, b: { $0.metrics = #"{ "primary": "trial_start_rate" }"# },
             aToB: .judged(["metrics.primary"]), bToA: .judged(["metrics.primary"])),
        Edit(name: "a guardrail", a: { $0.metrics = #"{ "primary": "paid_conversion", "guardrails": ["day0_cancel_rate"] }"# }, b: { _ in },
             aToB: .judged(["metrics.guardrails"]), bToA: .passes),
        Edit(name: "minimum_effect", a: { _ in }, b: { $0.metrics = #"{ "primary": "paid_conversion", "minimum_effect": 0.1 }"# },
             aToB: .judged(["metrics.minimum_effect"]), bToA: .judged(["metrics.minimum_effect"])),
        Edit(name: "a safeguard's alpha", a: { $0.extra = safeguards }, b: { $0.extra = safeguards.replacingOccurrences(of: "0.05", with: "0.1") },
             aToB: .judged(["safeguards.alpha"]), bToA: .judged(["safeguards.alpha"])),
        Edit(name: "safeguards", a: { $0.extra = safeguards }, b: { _ in }, aToB: .judged(["safeguards"]), bToA: .passes),
    ]

    /// Within the rollout's first stage and after every start.
    static let now = RFC3339.parse("2026-12-01T12:00:00Z")!

    @Test(arguments: edits)
    func throughAFolder(edit: Edit) throws {
        var a = Spec(), b = Spec()
        edit.a(&a)
        edit.b(&b)
        for (from, to, expect) in [(a, b, edit.aToB), (b, a, edit.bToA)] {
            let ref = TemporaryFolder(), folder = TemporaryFolder()
            for f in [ref, folder] { f.write("products.json", productsJSON) }
            ref.write("exp-a.json", from.json)
            folder.write("exp-a.json", to.json)
            let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
            try check(report, expect, from: from, to: to, label: "\(edit.name) \(expect)")
        }
    }

    @Test(arguments: edits)
    func throughAGitRevision(edit: Edit) async throws {
        var a = Spec(), b = Spec()
        edit.a(&a)
        edit.b(&b)
        for (from, to, expect) in [(a, b, edit.aToB), (b, a, edit.bToA)] {
            let repo = TemporaryFolder()
            try FileManager.default.createDirectory(atPath: repo.path + "/Experiments", withIntermediateDirectories: true)
            repo.write("Experiments/products.json", productsJSON)
            repo.write("Experiments/exp-a.json", from.json)
            try await git(["init", "-q"], in: repo.path)
            try await git(["add", "."], in: repo.path)
            try await git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "ref"], in: repo.path)
            repo.write("Experiments/exp-a.json", to.json)
            let report = try ExperimentFiles.validate(paths: [repo.path + "/Experiments"], against: "HEAD", now: Self.now)
            try check(report, expect, from: from, to: to, label: "\(edit.name) \(expect)")
        }
    }

    func check(_ report: ExperimentLoader.Report, _ expect: Expect, from: Spec, to: Spec, label: String) throws {
        let changes = report.diagnostics.filter { ["reshuffles_running_experiment", "running_arm_changed", "running_metrics_changed"].contains($0.code) }
        // Nothing else: both versions are valid files (an end that has passed is the loader's warning).
        #expect(report.diagnostics.filter { $0.code != "running_after_end" }.count == changes.count, "\(label): \(report.diagnostics.map(\.message))")
        switch expect {
        case .passes:
            #expect(changes.isEmpty, "\(label): \(changes.map(\.message))")
        case .warns(let field):
            #expect(changes.map(\.code) == ["running_arm_changed"], "\(label): \(changes.map(\.message))")
            #expect(changes.first?.severity == .warning && changes.first?.change?.fields == [field], "\(label)")
            #expect(report.errorCount == 0)
        case .judged(let fields):
            #expect(changes.map(\.code) == ["running_metrics_changed"], "\(label): \(changes.map(\.message))")
            #expect(changes.first?.severity == .warning && changes.first?.change?.fields == fields, "\(label): \(changes.first?.change?.fields ?? [])")
            #expect(report.errorCount == 0)
        case .reshuffles(let field, let computed):
            #expect(changes.map(\.code) == ["reshuffles_running_experiment"], "\(label): \(changes.map(\.message))")
            let d = try #require(changes.first)
            #expect(d.severity == .error && d.change?.fields == [field], "\(label): \(d.change?.fields ?? [])")
            #expect(d.message.contains(field), "\(label): \(d.message)")
            if computed {
                let share = try #require(d.change?.share, "\(label)")
                let (counted, enrolled) = try bruteForce(from: from, to: to)
                let observed = Double(counted) / Double(enrolled)
                // The computed share is the exact probability; the count over 100,000 ids is a sample of it.
                let se = max((share * (1 - share) / Double(enrolled)).squareRoot(), 1 / Double(enrolled))
                #expect(abs(observed - share) <= 4.5 * se, "\(label): computed \(share), counted \(counted) of \(enrolled) = \(observed)")
                #expect(share > 0)
            } else {
                #expect(d.change?.share == nil, "\(label)")
            }
        }
    }

    /// Of 100,000 ids the `from` version enrols (the Assigner, attributes its targeting takes), how many
    /// the `to` version answers differently.
    func bruteForce(from: Spec, to: Spec) throws -> (changed: Int, enrolled: Int) {
        func model(_ spec: Spec) throws -> AssignableExperiment {
            let folder = TemporaryFolder()
            folder.write("products.json", productsJSON)
            folder.write("exp-a.json", spec.json)
            let report = ExperimentFiles.validate(paths: [folder.path], now: Self.now)
            let e = try #require(report.catalog?.experiment("exp-a"), "\(report.diagnostics)")
            return try AssignableExperiment(e)
        }
        let old = try model(from), new = try model(to)
        let assigner = Assigner(experiments: [old, new])
        let attributes: Attributes = ["platform": .string("ios"), "app_version": .string("2.1.0"), "country": .string("GB")]
        var changed = 0, enrolled = 0
        for i in 0..<100_000 {
            let user = UserID("user-\(i)")
            let a = assigner.assign(userID: user, attributes: attributes, experiment: old, now: Self.now)
            guard a.inExperiment else { continue }
            enrolled += 1
            let b = assigner.assign(userID: user, attributes: attributes, experiment: new, now: Self.now)
            if !b.inExperiment || b.variantKey != a.variantKey { changed += 1 }
        }
        return (changed, enrolled)
    }

    @Test func exactSharesOfSimpleEdits() throws {
        func share(_ edit: (inout Spec) -> Void) throws -> Double? {
            var b = Spec()
            edit(&b)
            let ref = TemporaryFolder(), folder = TemporaryFolder()
            for f in [ref, folder] { f.write("products.json", productsJSON) }
            ref.write("exp-a.json", Spec().json)
            folder.write("exp-a.json", b.json)
            let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
            return report.diagnostics.first?.change?.share
        }
        // Half of the namespace slice gone: half the users; the slice moved: all of them.
        #expect(try share { $0.namespace?.end = 0.25 } == 0.5)
        #expect(try share { $0.namespace = ("paywall", 0.5, 1) } == 1)
        // 1:1:1 to 2:1:1: [1/3, 1/2) moves from name to control, [2/3, 3/4) from ai to name: a quarter,
        // on the 10,000-point grid of hash version 2.
        #expect(try share { $0.variants[0].weight = 2 } == 0.2499)
        // A new seed draws every bucket again: 1 - 3 × (1/3)², on the grid.
        let seed = try #require(try share { $0.seed = "other" })
        #expect(abs(seed - 2.0 / 3) < 1e-3)
    }

    @Test func aRunningExperimentsFileRemovedIsAnError() throws {
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        for f in [ref, folder] { f.write("products.json", productsJSON) }
        ref.write("exp-a.json", Spec().json)
        var other = Spec()
        other.namespace = ("paywall", 0.5, 1)
        let otherJSON = other.json.replacingOccurrences(of: "exp-a", with: "exp-b")
        ref.write("exp-b.json", otherJSON)
        folder.write("exp-b.json", otherJSON)
        let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
        #expect(report.diagnostics.map(\.code) == ["running_experiment_removed"])
        #expect(report.diagnostics.first?.file == folder.path + "/exp-a.json")
        // Renamed, not removed: the id is what counts.
        folder.write("renamed.json", Spec().json)
        #expect(try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now).diagnostics.isEmpty)
    }

    @Test func aRefVersionThatCannotBeComparedIsANoteNotASilentPass() throws {
        // At REF the running experiment had an error (a misspelt guardrail), or its file was not JSON:
        // the weight edited since then cannot be compared, and one note says so instead of nothing.
        var edited = Spec()
        edited.variants[0].weight = 2
        for refText in [Spec().json.replacingOccurrences(of: #""primary": "paid_conversion""#, with: #""primary": "paid_conversio""#),
                        "{ \"id\": \"exp-a\", "] {
            let ref = TemporaryFolder(), folder = TemporaryFolder()
            for f in [ref, folder] { f.write("products.json", productsJSON) }
            ref.write("exp-a.json", refText)
            folder.write("exp-a.json", edited.json)
            let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
            #expect(report.diagnostics.map(\.code) == ["checks_skipped"], "\(report.diagnostics)")
            let note = try #require(report.diagnostics.first)
            #expect(note.severity == .note && note.file == folder.path + "/exp-a.json")
            #expect(note.message.hasPrefix("not checked, because exp-a.json at \(ref.path) ") && note.message.hasSuffix("in running experiment 'exp-a'"),
                    "\(note.message)")
        }
    }

    @Test func aFileThatCannotBeReadIsOneErrorAndOneNoteWithAgainstToo() throws {
        // The running experiment's file broken since REF: its syntax error and one note naming every
        // check skipped, the loader's and --against's (was: a second note for the same file).
        var other = Spec()
        other.namespace = ("paywall", 0.5, 1)
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        for f in [ref, folder] {
            f.write("products.json", productsJSON)
            f.write("exp-b.json", other.json.replacingOccurrences(of: "exp-a", with: "exp-b"))
        }
        ref.write("exp-a.json", Spec().json)
        folder.write("exp-a.json", "{ \"id\": \"exp-a\", ")
        let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now)
        #expect(report.diagnostics.map(\.code) == ["invalid_json", "checks_skipped"], "\(report.diagnostics.map(\.message))")
        let note = try #require(report.diagnostics.last)
        #expect(note.message.hasPrefix("not checked, because this file is not valid JSON: "), "\(note.message)")
        #expect(note.message.hasSuffix("; whether running experiment 'exp-a' of \(ref.path) is still in the folder"), "\(note.message)")
    }

    @Test func anOverlapMadeByEditingOneFileIsReportedAtThatFile() throws {
        // b.json sorts after a.json, so without --against the clash lands on b; a.json is the one edited.
        var a = Spec(), b = Spec()
        b.namespace = ("paywall", 0.5, 1)
        let bJSON = b.json.replacingOccurrences(of: "exp-a", with: "exp-b")
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        for f in [ref, folder] { f.write("products.json", productsJSON); f.write("b.json", bJSON) }
        a.status = "draft"
        ref.write("a.json", a.json)
        a.status = "running"
        a.namespace = ("paywall", 0.25, 0.75)
        folder.write("a.json", a.json)
        let plain = ExperimentFiles.validate(paths: [folder.path], now: Self.now).diagnostics.filter { $0.code == "namespace_overlap" }
        #expect(plain.map { ($0.file as NSString).lastPathComponent } == ["b.json"])
        let against = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now).diagnostics
        let overlaps = against.filter { $0.code == "namespace_overlap" }
        #expect(overlaps.map { ($0.file as NSString).lastPathComponent } == ["a.json"], "\(against)")
        #expect(overlaps.first?.hint == "free slice of namespace 'paywall': [0, 0.5); move this experiment's range into it")
    }

    @Test func aDuplicateIdMadeByAddingAFileIsReportedAtThatFile() throws {
        // a.json, added since REF, takes b.json's id: plain validate reports the clash at the later
        // file, b.json; with --against at a.json, the changed one.
        var b = Spec(), a = Spec()
        b.namespace = ("paywall", 0.5, 1)
        a.namespace = ("other", 0, 1)
        let bJSON = b.json.replacingOccurrences(of: "exp-a", with: "exp-b")
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        for f in [ref, folder] { f.write("products.json", productsJSON); f.write("b.json", bJSON) }
        folder.write("a.json", a.json.replacingOccurrences(of: "exp-a", with: "exp-b"))
        let plain = ExperimentFiles.validate(paths: [folder.path], now: Self.now).diagnostics
        #expect(plain.map { "\(($0.file as NSString).lastPathComponent) \($0.code)" } == ["b.json duplicate_experiment_id"], "\(plain)")
        let against = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: Self.now).diagnostics
        #expect(against.map { "\(($0.file as NSString).lastPathComponent) \($0.code)" } == ["a.json duplicate_experiment_id"], "\(against)")
    }

    @Test func aRefThatIsNeitherAFolderNorARevisionIsRefused() throws {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        folder.write("exp-a.json", Spec().json)
        #expect(throws: ReferenceFiles.ReadError.self) { try ExperimentFiles.validate(paths: [folder.path], against: "no-such-revision", now: Self.now) }
    }

    func git(_ arguments: [String], in folder: String) async throws {
        let run = try await ChildProcess.run("/usr/bin/env", ["git", "-C", folder] + arguments)
        #expect(run.status == 0, "git \(arguments): \(run.stderr)")
    }
}

/// A running global holdout: its `fraction` lays its two implicit arms out, so changing it moves users.
@Suite struct AgainstHoldoutTests {
    @Test func aHoldoutsFractionMovesTheUsersBetweenItsArms() throws {
        func holdout(_ fraction: Double) -> String {
            #"{"$schema": "schema.json", "id": "hold", "name": "Holdout", "kind": "holdout", "fraction": \#(fraction), "status": "running", "start": "2026-12-01T00:00:00Z"}"#
        }
        let ref = TemporaryFolder(), folder = TemporaryFolder()
        for f in [ref, folder] { f.write("products.json", productsJSON) }
        ref.write("hold.json", holdout(0.05))
        folder.write("hold.json", holdout(0.1))
        let report = try ExperimentFiles.validate(paths: [folder.path], against: ref.path, now: AgainstTests.now)
        #expect(report.diagnostics.map(\.code) == ["reshuffles_running_experiment"], "\(report.diagnostics)")
        // [0.05, 0.1) of the grid moves from general to holdout.
        #expect(report.diagnostics.first?.change == Diagnostic.Change(fields: ["fraction"], share: 0.05))
    }
}
