import Foundation

/// What changed since REF in the experiments REF was running (`validate --against REF`):
/// an edit that moves users between arms or in and out is the error `reshuffles_running_experiment`
/// with the share of REF's enrolled users whose answer changes; a removed file is
/// `running_experiment_removed`; an arm's paywall edited is the warning `running_arm_changed`, and so
/// are the settings its results are read by and the placements that feed it (RunningChanges+Settings).
public struct RunningChanges {
    /// The share of `old`'s enrolled users at a time whose answer `new` changes (Assignment's
    /// `AnswerChange.share`; it lives there because the hashing does).
    public typealias ShareOfChangedAnswers = @Sendable (_ old: Experiment, _ new: Experiment, _ at: Date) -> Double

    let ref: ReferenceFiles
    /// The folder as the loader names its files ("Experiments", "." for the working folder).
    let folder: String
    let now: Date
    let share: ShareOfChangedAnswers
    let conditionLinter: ExperimentLoader.ConditionLinter

    public init(ref: ReferenceFiles, folder: String, now: Date, share: @escaping ShareOfChangedAnswers,
                conditionLinter: @escaping ExperimentLoader.ConditionLinter) {
        self.ref = ref
        self.folder = folder
        self.now = now
        self.share = share
        self.conditionLinter = conditionLinter
    }

    /// One experiment of REF: its file name, tree and model (nil when REF's file did not decode).
    struct Before {
        var name: String
        var root: JSONNode
        var experiment: Experiment?
    }

    /// REF's running experiments, by id, and the names of REF's experiment files that could not be
    /// read there (not JSON, or no id): whether those were running is not known.
    func runningAtRef() -> (running: [String: Before], unreadable: Set<String>) {
        var out: [String: Before] = [:]
        var unreadable: Set<String> = []
        for (name, bytes) in ref.files.sorted(by: { $0.key < $1.key }) where !ExperimentLoader.reservedNames.contains(name) {
            guard let root = try? JSONReader.parse(bytes) else { unreadable.insert(name); continue }
            let sink = DiagnosticSink(file: name)
            var decoder = ExperimentDecoder(sink: sink, products: nil, conditionLinter: conditionLinter)
            decoder.now = now
            let (experiment, outline) = decoder.decode(root)
            guard let id = outline.id else { unreadable.insert(name); continue }
            guard outline.status == .running else { continue }
            out[id] = Before(name: name, root: root, experiment: sink.hasErrors ? nil : experiment)
        }
        return (out, unreadable)
    }

    /// The note for a running experiment whose version at REF could not be compared: an edit of it
    /// is not checked, which must show rather than pass in silence.
    func refNotReadable(_ id: String, refName: String, why: String, file: String) -> Diagnostic {
        Diagnostic(file: file, position: SourcePosition(line: 1, column: 1), severity: .note, code: "checks_skipped",
                   message: "not checked, because \(refName) at \(ref.label) \(why): what changed since \(ref.label) in running experiment '\(id)'",
                   hint: "run 'abctl validate' on \(ref.label)'s version to see why; check by hand that this edit moves no enrolled user")
    }

    /// The diagnostics for `files`, the folder's experiment files as read now. `wholeFolder`: the
    /// folder was named, so an experiment of REF missing from `files` was removed (with single files
    /// named, the others were not looked at).
    public func check(_ files: [ExperimentLoader.ExperimentFile], wholeFolder: Bool) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let byID = Dictionary(files.compactMap { f in f.outline?.id.map { ($0, f) } }, uniquingKeysWith: { first, _ in first })
        let unreadable = files.filter { $0.outline?.id == nil }
        var notFound: [String] = []
        let (running, unreadableAtRef) = runningAtRef()
        for (id, before) in running.sorted(by: { $0.key < $1.key }) {
            guard let current = byID[id] else {
                if wholeFolder { notFound.append(id) }
                continue
            }
            guard let old = before.experiment else {
                out.append(refNotReadable(id, refName: before.name, why: "has errors", file: current.file))
                continue
            }
            guard let new = current.experiment, let root = current.root else {
                out.append(Diagnostic(file: current.file, position: SourcePosition(line: 1, column: 1), severity: .note, code: "checks_skipped",
                                      message: "not checked, because this file has errors: what changed since \(ref.label) in running experiment '\(id)'",
                                      hint: "fix this file's errors and run validate again"))
                continue
            }
            out += compare(old, before.root, new, root, file: current.file)
        }
        let stillRunning = running.keys.reduce(into: [String: Experiment]()) { out, id in
            if let e = byID[id]?.experiment, e.status == .running { out[id] = e }
        }
        out += sharedFileWarnings(running: stillRunning) { name in FileManager.default.contents(atPath: folder + "/" + name).map { [UInt8]($0) } }
        // A running experiment whose file at REF could not be read: it may have been running there.
        for f in files where !unreadableAtRef.isEmpty {
            let name = (f.file as NSString).lastPathComponent
            guard unreadableAtRef.contains(name), let id = f.outline?.id, running[id] == nil, f.outline?.status == .running else { continue }
            out.append(refNotReadable(id, refName: name, why: "could not be read (not JSON, or no id)", file: f.file))
        }
        if !notFound.isEmpty, let first = unreadable.first {
            // A file whose id could not be read may be one of them: one note instead of a false removal each.
            out.append(Diagnostic(file: first.file, position: SourcePosition(line: 1, column: 1), severity: .note, code: "checks_skipped",
                                  message: "not checked, because \(unreadable.count == 1 ? "this file's id" : "the ids of \(unreadable.count) files") could not be read: whether running "
                                      + "\(notFound.count == 1 ? "experiment" : "experiments") \(notFound.map { "'\($0)'" }.joined(separator: ", ")) of \(ref.label) \(notFound.count == 1 ? "is" : "are") still in the folder",
                                  hint: "fix this file's error and run validate again"))
        } else {
            for id in notFound {
                let name = running[id]?.name ?? "\(id).json"
                out.append(Diagnostic(
                    file: folder == "." ? name : "\(folder)/\(name)", position: SourcePosition(line: 1, column: 1), code: "running_experiment_removed",
                    message: "running experiment '\(id)' (\(name) at \(ref.label)) was removed: its users lose their arm and its results stop mid-way",
                    hint: "keep the file and set \"status\": \"stopped\" (or \"shipped\" with a winner); remove it once it has stopped",
                    change: Diagnostic.Change(fields: ["file"], share: 1)))
            }
        }
        return out
    }

    /// The checks of one running experiment against its REF version.
    func compare(_ old: Experiment, _ oldRoot: JSONNode, _ new: Experiment, _ root: JSONNode, file: String) -> [Diagnostic] {
        let tree = Tree(root: root)
        if new.status != .running {
            // Paused, stopped and shipped keep every enrolled user's answer or end the experiment on purpose.
            guard new.status == .draft else { return [] }
            return [reshuffle(old.id, file: file, at: tree.position("status"), fields: ["status"], share: 1,
                              what: "changed status to \"draft\", which assigns nobody: 100.00% of the users it enrolled at \(ref.label) would get another answer",
                              hint: "stop it (\"status\": \"stopped\") or pause it (\"paused\": sticky users keep their arm)")]
        }
        var out: [Diagnostic] = []
        let moved = movingFields(old, new, tree)
        if !moved.isEmpty {
            let shares = times(old, new).map { share(old, new, $0) }
            let worst = shares.max() ?? 0
            if worst > 0 {
                out.append(reshuffle(old.id, file: file, at: moved[0].position, fields: moved.map(\.field), share: worst,
                                     what: "changed \(moved.map(\.field).joined(separator: ", ")): \(Self.percent(worst)) of the users it enrolled at \(ref.label) would get another answer"))
            }
        }
        let oldAllocation = Tree(root: oldRoot).node("allocation")?.value, newAllocation = tree.node("allocation")?.value
        if !Self.same(oldAllocation, newAllocation) {
            out.append(reshuffle(old.id, file: file, at: tree.position("allocation"), fields: ["allocation"], share: nil,
                                 what: "changed allocation: its arms' weights are learned, so the share of users moved cannot be read from the files"))
        }
        out += dateChanges(old, new, tree, file: file)
        for narrowing in TargetingChange.narrowings(from: old, to: new) {
            out.append(reshuffle(old.id, file: file, at: tree.position(narrowing.path), fields: [narrowing.field], share: nil,
                                 what: "\(narrowing.reason): not a pure widening, so some enrolled users would leave"))
        }
        out += paywallWarnings(old, oldRoot, new, tree, file: file)
        out += metricsWarnings(old.id, Tree(root: oldRoot), tree, file: file)
        return out
    }

    /// `start` moved after now or, under a bandit's allocation, at all; `end` moved before now. A
    /// rollout's start is among `movingFields`, whose share follows the stages.
    func dateChanges(_ old: Experiment, _ new: Experiment, _ tree: Tree, file: String) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let enrolled = old.start.map { $0 <= now } ?? true
        if new.start != old.start, let start = new.start {
            if enrolled && start > now {
                out.append(reshuffle(old.id, file: file, at: tree.position("start"), fields: ["start"], share: 1,
                                     what: "moved start to \(RFC3339.format(start)), after now: 100.00% of the users it enrolled at \(ref.label) would be answered 'outside_dates'",
                                     hint: "keep the start; to stop enrolling, set \"status\": \"paused\" (sticky users keep their arm) or \"stopped\""))
            } else if old.allocation != nil && new.allocation != nil {
                out.append(reshuffle(old.id, file: file, at: tree.position("start"), fields: ["start"], share: nil,
                                     what: "moved start: a bandit's periods are laid from its start, so every period and its weights would shift"))
            }
        }
        if enrolled, new.end != old.end, let end = new.end, end <= now, old.end.map({ $0 > now }) ?? true {
            out.append(reshuffle(old.id, file: file, at: tree.position("end"), fields: ["end"], share: 1,
                                 what: "moved end to \(RFC3339.format(end)), before now: 100.00% of the users it enrolled at \(ref.label) would be answered 'outside_dates'",
                                 hint: "to end it, set \"status\": \"stopped\" (or \"shipped\" with a winner), which keeps its results whole"))
        }
        return out
    }

    /// The moments the share is computed at: now, and each later rollout stage start of either version.
    func times(_ old: Experiment, _ new: Experiment) -> [Date] {
        var out = [now]
        for e in [old, new] {
            guard let rollout = e.rollout, let start = e.start else { continue }
            out += rollout.stageEnds(start: start).compactMap { $0 }.filter { $0 > now }
        }
        return out
    }

    /// The fields whose change may move users between arms or in and out of the experiment (the
    /// share then says whether it did).
    func movingFields(_ old: Experiment, _ new: Experiment, _ tree: Tree) -> [(field: String, position: SourcePosition)] {
        var out: [(field: String, position: SourcePosition)] = []
        let oldKeys = old.variants.map(\.key), newKeys = new.variants.map(\.key)
        if old.isHoldout || new.isHoldout {
            if old.fraction != new.fraction { out.append(("fraction", tree.position("fraction"))) }
        } else if oldKeys != newKeys {
            out.append(("variants", tree.position("variants")))
        } else {
            // The weights edited by hand are named; the share says whether their ratio moved anyone.
            let a = old.variants.map(\.weight), b = new.variants.map(\.weight)
            for i in a.indices where a[i] != b[i] {
                out.append(("variants[\(i)].weight", tree.position(["variants", "\(i)", "weight"])))
            }
        }
        if old.seed != new.seed { out.append(("seed", tree.position("seed"))) }
        if old.hashVersion != new.hashVersion { out.append(("hash_version", tree.position("hash_version"))) }
        switch (old.namespace, new.namespace) {
        case (nil, nil): break
        case let (a?, b?):
            if a.id != b.id { out.append(("namespace.id", tree.position(["namespace", "id"]))) }
            if a.start != b.start || a.end != b.end { out.append(("namespace.range", tree.position(["namespace", "range"]))) }
        default: out.append(("namespace", tree.position("namespace")))
        }
        if old.coverage != new.coverage { out.append(("coverage", tree.position("coverage"))) }
        if old.rollout != new.rollout || (old.rollout != nil && old.start != new.start) {
            let a = old.rollout?.stages ?? [], b = new.rollout?.stages ?? []
            if let i = b.indices.first(where: { $0 >= a.count || a[$0] != b[$0] }) {
                out.append(("rollout.stages[\(i)]", tree.position(["rollout", "stages", "\(i)"])))
            } else {
                out.append(("rollout", tree.position("rollout")))
            }
        }
        return out
    }

    /// `running_arm_changed` for each arm whose paywall differs from REF's (its results would mix two paywalls).
    func paywallWarnings(_ old: Experiment, _ oldRoot: JSONNode, _ new: Experiment, _ tree: Tree, file: String) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let oldTree = Tree(root: oldRoot)
        for (i, variant) in new.variants.enumerated() where !new.isHoldout {
            guard let j = old.variants.firstIndex(where: { $0.key == variant.key }) else { continue }
            let before = oldTree.node(["variants", "\(j)", "paywall"])?.value, after = tree.node(["variants", "\(i)", "paywall"])?.value
            guard !Self.same(before, after) else { continue }
            var fields: [String] = []
            if case .object(let a)? = before, case .object(let b)? = after {
                let keys = (a.map(\.0) + b.map(\.0)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                fields = keys.filter { key in !Self.same(a.first { $0.0 == key }?.1, b.first { $0.0 == key }?.1) }
            }
            let paths = fields.isEmpty ? ["variants[\(i)].paywall"] : fields.map { "variants[\(i)].paywall.\($0)" }
            let position = fields.first.map { tree.position(["variants", "\(i)", "paywall", $0]) } ?? tree.position(["variants", "\(i)", "paywall"])
            out.append(Diagnostic(
                file: file, position: position, severity: .warning, code: "running_arm_changed",
                message: "running experiment '\(new.id)': arm '\(variant.key)' shows another paywall than at \(ref.label) (\(fields.isEmpty ? "paywall" : fields.joined(separator: ", "))); its results would mix two paywalls",
                hint: "test the new paywall in a new experiment, or accept results that mix both (validate --strict fails on this)",
                change: Diagnostic.Change(fields: paths, share: nil)))
        }
        return out
    }

    private func reshuffle(_ id: String, file: String, at position: SourcePosition, fields: [String], share: Double?, what: String,
                           hint: String? = nil) -> Diagnostic {
        Diagnostic(file: file, position: position, code: "reshuffles_running_experiment",
                   message: "running experiment '\(id)' \(what)",
                   hint: hint ?? "users would move between arms and every result after the change would mix them; revert it, or stop this experiment and start a new one with a new id",
                   change: Diagnostic.Change(fields: fields, share: share))
    }

    /// "16.67%", with more digits when the share is tiny but not zero.
    public static func percent(_ share: Double) -> String {
        let p = share * 100
        return p >= 0.01 ? String(format: "%.2f%%", p) : String(format: "%.2g%%", p)
    }

    /// Equal as JSON, whatever the order of object keys.
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (.object(x)?, .object(y)?):
            return x.count == y.count && x.allSatisfy { member in y.contains { $0.0 == member.0 && same($0.1, member.1) } }
        case let (.array(x)?, .array(y)?):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (x?, y?): return x == y
        default: return false
        }
    }

    /// Positions in one file's tree by path (object keys, array indices as digits).
    struct Tree {
        let root: JSONNode

        func node(_ path: [String]) -> JSONNode? {
            var current = root
            for part in path {
                switch current.kind {
                case .object(let members):
                    guard let m = members.first(where: { $0.key == part }) else { return nil }
                    current = m.value
                case .array(let items):
                    guard let i = Int(part), items.indices.contains(i) else { return nil }
                    current = items[i]
                default: return nil
                }
            }
            return current
        }

        func node(_ key: String) -> JSONNode? { node([key]) }

        /// The deepest node of `path` that exists: a removed key points at the object that lost it.
        func position(_ path: [String]) -> SourcePosition {
            for n in stride(from: path.count, through: 0, by: -1) {
                if let found = node(Array(path.prefix(n))) { return found.position }
            }
            return root.position
        }

        func position(_ key: String) -> SourcePosition { position([key]) }
    }
}
