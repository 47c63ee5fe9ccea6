/// What changed since REF in the settings a running experiment's results are read by (its metrics,
/// `products.json`) and in the placements that route users to it: warnings, since no user moves
/// between arms, but the results would no longer answer the question the experiment started with.
extension RunningChanges {
    /// The keys of `metrics` whose change alters how a running experiment is judged.
    static let judgedMetricsKeys = ["minimum_effect", "revenue_cap", "adjust_for", "day0_window_hours", "sequential", "maturity_grace_days"]

    /// `running_metrics_changed`: the primary metric changed, a guardrail or safeguard metric removed,
    /// or a setting of `metrics` or `safeguards` changed.
    func metricsWarnings(_ id: String, _ old: Tree, _ new: Tree, file: String) -> [Diagnostic] {
        var changed: [(field: String, position: SourcePosition, what: String)] = []
        func text(_ value: JSONValue?) -> String { value.map(Self.describe) ?? "none" }
        let oldPrimary = old.node(["metrics", "primary"])?.value, newPrimary = new.node(["metrics", "primary"])?.value
        if !Self.same(oldPrimary, newPrimary) {
            changed.append(("metrics.primary", new.position(["metrics", "primary"]), "primary metric \(text(oldPrimary)) → \(text(newPrimary))"))
        }
        let safeguardsRemoved = old.node("safeguards") != nil && new.node("safeguards") == nil
        for path in [["metrics", "guardrails"]] + (safeguardsRemoved ? [] : [["safeguards", "metrics"]]) {
            let removed = Self.strings(old.node(path)).filter { !Self.strings(new.node(path)).contains($0) }
            if !removed.isEmpty {
                changed.append((path.joined(separator: "."), new.position(path), "\(path.joined(separator: ".")) lost \(removed.joined(separator: ", "))"))
            }
        }
        for key in Self.judgedMetricsKeys {
            let a = old.node(["metrics", key])?.value, b = new.node(["metrics", key])?.value
            if !Self.same(a, b) { changed.append(("metrics.\(key)", new.position(["metrics", key]), "metrics.\(key) \(text(a)) → \(text(b))")) }
        }
        let safeguardKeys = Self.keys(old.node("safeguards"), new.node("safeguards")).filter { $0 != "metrics" }
        if safeguardsRemoved {
            changed.append(("safeguards", new.root.position, "safeguards removed"))
        } else if old.node("safeguards") != nil {
            // Safeguards added to a running experiment only guard it: nothing it was judged by changes.
            for key in safeguardKeys {
                let a = old.node(["safeguards", key])?.value, b = new.node(["safeguards", key])?.value
                if !Self.same(a, b) { changed.append(("safeguards.\(key)", new.position(["safeguards", key]), "safeguards.\(key) \(text(a)) → \(text(b))")) }
            }
        }
        guard let first = changed.first else { return [] }
        return [Diagnostic(file: file, position: first.position, severity: .warning, code: "running_metrics_changed",
                           message: "running experiment '\(id)' is judged by other settings than at \(ref.label) (\(changed.map(\.what).joined(separator: "; "))): "
                               + "choosing how to read an experiment after seeing its data is how false wins are made",
                           hint: "keep the settings it started with, and test the new ones in a new experiment (validate --strict fails on this)",
                           change: Diagnostic.Change(fields: changed.map(\.field), share: nil))]
    }

    /// The warnings of `products.json` and `placements.json` for the experiments running both at REF
    /// and now (`running`: id → the current model): a price, plan or storefront a running arm shows
    /// (`running_arm_changed`), the currency, exchange rates or store fees its revenue is counted in
    /// (`running_metrics_changed`), an audience that routed users to it (`running_placement_changed`).
    func sharedFileWarnings(running: [String: Experiment], current: (String) -> [UInt8]?) -> [Diagnostic] {
        guard !running.isEmpty else { return [] }
        var out: [Diagnostic] = []
        let productsName = "products.json", placementsName = ExperimentLoader.placementsName
        if let before = ref.files[productsName].flatMap({ try? JSONReader.parse($0) }), let now = current(productsName).flatMap({ try? JSONReader.parse($0) }) {
            out += productsWarnings(Tree(root: before), Tree(root: now), running: running, file: path(of: productsName))
        }
        if let before = ref.files[placementsName].flatMap({ try? JSONReader.parse($0) }) {
            let now = current(placementsName).flatMap { try? JSONReader.parse($0) }
            out += placementsWarnings(Tree(root: before), now.map(Tree.init), running: running, file: path(of: placementsName))
        }
        return out
    }

    /// A file of the folder as the loader names it.
    func path(of name: String) -> String { folder == "." ? name : "\(folder)/\(name)" }

    func productsWarnings(_ old: Tree, _ new: Tree, running: [String: Experiment], file: String) -> [Diagnostic] {
        var out: [Diagnostic] = []
        // Each running arm, by the offering it shows.
        var arms: [String: [String]] = [:]
        for (id, e) in running.sorted(by: { $0.key < $1.key }) where !e.isHoldout {
            for v in e.variants { if let offering = v.paywall?.offering { arms[offering, default: []].append("\(id)/\(v.key)") } }
        }
        let allArms = arms.keys.sorted().flatMap { arms[$0]! }
        func armChanged(_ fields: [String], at position: SourcePosition, _ what: String, arms: [String]) {
            out.append(Diagnostic(file: file, position: position, severity: .warning, code: "running_arm_changed",
                                  message: "\(what) since \(ref.label), which running \(arms.count == 1 ? "arm" : "arms") \(arms.joined(separator: ", ")) \(arms.count == 1 ? "shows" : "show"): "
                                      + "\(arms.count == 1 ? "its" : "their") results would mix two prices",
                                  hint: "keep the price table of a running experiment; test a new price in a new experiment (validate --strict fails on this)",
                                  change: Diagnostic.Change(fields: fields, share: nil)))
        }
        for offering in arms.keys.sorted() {
            let path = ["offerings", offering, "plans"]
            for plan in Self.keys(old.node(path), new.node(path)) {
                let planPath = path + [plan]
                let a = old.node(planPath)?.value, b = new.node(planPath)?.value
                guard !Self.same(a, b) else { continue }
                let fields = Self.keys(old.node(planPath), new.node(planPath)).filter { !Self.same(old.node(planPath + [$0])?.value, new.node(planPath + [$0])?.value) }
                let what = a == nil ? "plan '\(plan)' was added to offering '\(offering)'"
                    : b == nil ? "plan '\(plan)' was removed from offering '\(offering)'"
                    : "offering '\(offering)' plan '\(plan)' changed (\(fields.map { "\($0) \(Self.describe(old.node(planPath + [$0])?.value)) → \(Self.describe(new.node(planPath + [$0])?.value))" }.joined(separator: "; ")))"
                let dotted = "offerings.\(offering).plans.\(plan)"
                armChanged(a == nil || b == nil ? [dotted] : fields.map { "\(dotted).\($0)" },
                           at: new.position(fields.first.map { planPath + [$0] } ?? planPath), what, arms: arms[offering]!)
            }
        }
        if !Self.same(old.node("storefronts")?.value, new.node("storefronts")?.value) {
            let changed = Self.keys(old.node("storefronts"), new.node("storefronts"))
                .filter { !Self.same(old.node(["storefronts", $0])?.value, new.node(["storefronts", $0])?.value) }
            armChanged(changed.map { "storefronts.\($0)" }, at: new.position(changed.first.map { ["storefronts", $0] } ?? ["storefronts"]),
                       "the storefronts \(changed.joined(separator: ", ")) changed", arms: allArms)
        }
        let counted = ["currency", "exchange_rates", "stores"].filter { !Self.same(old.node($0)?.value, new.node($0)?.value) }
        if let first = counted.first {
            out.append(Diagnostic(file: file, position: new.position(first), severity: .warning, code: "running_metrics_changed",
                                  message: "\(counted.joined(separator: ", ")) changed since \(ref.label): the revenue of running experiments \(running.keys.sorted().joined(separator: ", ")) "
                                      + "would be counted in two ways, before and after",
                                  hint: "keep how revenue is counted while experiments run (validate --strict fails on this)",
                                  change: Diagnostic.Change(fields: counted, share: nil)))
        }
        return out
    }

    /// Each audience that routed users to a running experiment at REF and now routes elsewhere, was
    /// removed, had its condition changed, or has a new audience placed above it.
    func placementsWarnings(_ old: Tree, _ new: Tree?, running: [String: Experiment], file: String) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for placement in Self.keys(old.node("placements"), nil) {
            let before = Self.audiences(old.node(["placements", placement, "audiences"]))
            let after = Self.audiences(new?.node(["placements", placement, "audiences"]))
            for (index, audience) in before.enumerated() {
                guard let experiment = audience.experiment, running[experiment] != nil else { continue }
                var what: String?
                var position = new?.position(["placements", placement]) ?? SourcePosition(line: 1, column: 1)
                if new?.node(["placements", placement]) == nil {
                    what = "placement '\(placement)' was removed"
                } else if let now = after.firstIndex(where: { $0.name == audience.name }) {
                    let a = after[now]
                    position = a.node.position
                    let added = after[..<now].filter { above in !before.contains { $0.name == above.name } }.map(\.name)
                    if a.experiment != experiment {
                        what = "its audience '\(audience.name)' now routes to \(a.experiment.map { "'\($0)'" } ?? "a fixed paywall")"
                    } else if !Self.same(a.condition, audience.condition) {
                        what = "its audience '\(audience.name)' has another condition"
                    } else if !added.isEmpty {
                        what = "a new audience \(added.map { "'\($0)'" }.joined(separator: ", ")) is placed above its audience '\(audience.name)'"
                    }
                } else {
                    what = "its audience '\(audience.name)' was removed"
                }
                guard let what else { continue }
                out.append(Diagnostic(file: file, position: position, severity: .warning, code: "running_placement_changed",
                                      message: "placement '\(placement)' routed users to running experiment '\(experiment)' at \(ref.label) (audience \(index + 1), '\(audience.name)'); "
                                          + "\(what): the experiment's population changes mid-way",
                                      hint: "keep the audiences that feed a running experiment; route new users to a new experiment (validate --strict fails on this)",
                                      change: Diagnostic.Change(fields: ["placements.\(placement).audiences"], share: nil)))
            }
        }
        return out
    }

    /// The audiences of a placement's `audiences` array, as written.
    static func audiences(_ node: JSONNode?) -> [(name: String, experiment: String?, condition: JSONValue?, node: JSONNode)] {
        guard case .array(let items)? = node?.kind else { return [] }
        return items.enumerated().map { i, item in
            let tree = Tree(root: item)
            var name = "#\(i + 1)"
            if case .string(let s)? = tree.node("name")?.kind { name = s }
            var experiment: String?
            if case .string(let s)? = tree.node("experiment")?.kind { experiment = s }
            return (name, experiment, tree.node("condition")?.value, item)
        }
    }

    /// The keys of two objects, the first's in order, then the second's new ones.
    static func keys(_ a: JSONNode?, _ b: JSONNode?) -> [String] {
        var out: [String] = []
        for node in [a, b] {
            guard case .object(let members)? = node?.kind else { continue }
            for m in members where !out.contains(m.key) { out.append(m.key) }
        }
        return out
    }

    /// The strings of an array node (metric names).
    static func strings(_ node: JSONNode?) -> [String] {
        guard case .array(let items)? = node?.kind else { return [] }
        return items.compactMap { if case .string(let s) = $0.kind { s } else { nil } }
    }

    /// A value as a message quotes it: strings quoted, numbers as written in JSON.
    static func describe(_ value: JSONValue?) -> String {
        value?.serialized() ?? "none"
    }
}
