/// Reads `placements.json`, reporting every problem (unknown experiments, paywalls that would not
/// validate in an experiment, duplicate audience names, audiences no request can reach).
struct PlacementsDecoder {
    let sink: DiagnosticSink
    let products: Products?
    /// Experiment id → kind, of the experiments beside the file.
    let experiments: [String: Experiment.Kind]
    var conditionLinter: ExperimentLoader.ConditionLinter
    /// True when an experiment file beside it could not be read: a name not found may be that file's
    /// experiment, so it is collected in `skippedNames` instead of being reported as unknown.
    var someExperimentsUnreadable = false
    /// The audiences whose experiment name was not checked, for the loader's one note.
    let skipped = SkippedNames()
    var skippedNames: [(file: String, audience: String, experiment: String)] { skipped.items }

    final class SkippedNames {
        var items: [(file: String, audience: String, experiment: String)] = []
    }

    static let placementKeys = ["default", "audiences", "description"]
    static let audienceKeys = ["name", "condition", "experiment", "paywall"]

    func decode(_ root: JSONNode) -> [Placement] {
        guard let r = ObjectReader(root, what: "placements.json", allowed: ["$schema", "placements"], required: ["placements"], sink: sink),
              let node = r.node("placements") else { return [] }
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'placements' must be an object of placement id to placement, not \(node.typeName)")
            return []
        }
        let paywalls = ExperimentDecoder(sink: sink, products: products, conditionLinter: conditionLinter)
        var placements: [Placement] = []
        var seen: Set<String> = []
        for m in members {
            if !ExperimentDecoder.isValidID(m.key) {
                sink.error("bad_placement_id", at: m.keyPosition, "placement id '\(m.key)' is not valid",
                           hint: "use 1 to 64 lowercase letters, digits, '-' or '_', e.g. \"\(ExperimentDecoder.suggestID(m.key))\"")
            }
            if !seen.insert(m.key).inserted {
                sink.error("duplicate_key", at: m.keyPosition, "placement '\(m.key)' appears twice", hint: "keep one of them")
            }
            guard let pr = ObjectReader(m.value, what: "placement '\(m.key)'", allowed: Self.placementKeys, required: ["default"], sink: sink) else { continue }
            let defaultPaywall = pr.node("default").flatMap {
                paywalls.decodePaywall($0, what: "placement '\(m.key)' default", copyOwner: "placement '\(m.key)' default")
            }
            var audiences: [Audience] = []
            var names: [String: SourcePosition] = [:]
            var catchAll: String? = nil
            for item in pr.array("audiences") ?? [] {
                guard let audience = decodeAudience(item, placement: m.key, decoder: paywalls) else { continue }
                if let first = names[audience.name.text] {
                    sink.error("duplicate_audience", at: audience.name.position, "audience '\(audience.name.text)' is used twice in placement '\(m.key)' (first at line \(first.line))",
                               hint: "give each audience its own name; exposures and reports tell them apart by it")
                } else {
                    names[audience.name.text] = audience.name.position
                }
                if let catchAll {
                    sink.warning("unreachable_audience", at: item.position, "audience '\(audience.name.text)' is never reached: audience '\(catchAll)' above it has no condition and takes everyone",
                                 hint: "move it above '\(catchAll)', or remove it")
                } else if audience.value.condition == nil {
                    catchAll = audience.name.text
                }
                audiences.append(audience.value)
            }
            placements.append(Placement(id: m.key, defaultPaywall: defaultPaywall, audiences: audiences))
        }
        return placements
    }

    private func decodeAudience(_ node: JSONNode, placement: String, decoder: ExperimentDecoder)
        -> (value: Audience, name: (text: String, position: SourcePosition))? {
        guard let r = ObjectReader(node, what: "an audience of placement '\(placement)'", allowed: Self.audienceKeys, required: ["name"], sink: sink) else { return nil }
        let name = r.string("name") ?? ""
        if r.has("name") && name.trimmingSpaces().isEmpty {
            sink.error("empty_value", at: r.position("name"), "audience name is empty", hint: "name who the audience is, e.g. \"returning\"")
        }
        let condition = r.node("condition").flatMap(decoder.decodeCondition)
        let shows: Audience.Shows
        switch (r.node("experiment"), r.node("paywall")) {
        case (.some, .some):
            sink.error("audience_shows_two", at: r.position("paywall"), "audience '\(name)' has both 'experiment' and 'paywall'",
                       hint: "an audience shows an experiment, a fixed paywall, or null (no paywall): keep one")
            return nil
        case (.none, .none):
            sink.error("missing_key", at: node.position, "audience '\(name)' needs 'experiment' or 'paywall'",
                       hint: "add \"experiment\": \"ID\", a fixed \"paywall\": {…}, or \"paywall\": null for no paywall")
            return nil
        case (.some, .none):
            guard let id = r.string("experiment") else { return nil }
            switch experiments[id] {
            case nil where someExperimentsUnreadable:
                skipped.items.append((sink.file, "'\(name)' of '\(placement)'", id))
            case nil:
                let known = experiments.filter { $0.value == .experiment }.keys.sorted()
                sink.error("unknown_experiment", at: r.position("experiment"), "audience '\(name)' names experiment '\(id)', which is not in this folder",
                           hint: Spelling.closest(to: id, in: known).map { "did you mean '\($0)'?" } ?? "experiments: \(known.joined(separator: ", "))")
            case .holdout:
                sink.error("holdout_in_placement", at: r.position("experiment"), "'\(id)' is a holdout; it applies to every placement by itself",
                           hint: "name an experiment here")
            case .experiment:
                break
            }
            shows = .experiment(id)
        case (.none, .some(let p)):
            shows = .paywall(decoder.decodePaywall(p, what: "audience '\(name)' paywall", copyOwner: "audience '\(name)'"))
        }
        return (Audience(name: name, condition: condition, shows: shows), (name, r.position("name")))
    }
}
