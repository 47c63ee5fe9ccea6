import Foundation

/// Turns one experiment file's JSON tree into an `Experiment`, reporting every problem it sees.
///
/// Decoding goes on after an error (with the default in its place) so one run reports them all.
struct ExperimentDecoder {
    let sink: DiagnosticSink
    let products: Products?
    /// Deeper checks of a GrowthBook condition (bad regexes, operand types) from a higher layer.
    var conditionLinter: ExperimentLoader.ConditionLinter
    /// The time against which a running experiment's `end` is checked.
    var now: Date = Date()

    static let topKeys = [
        "$schema", "id", "name", "hypothesis", "owner", "status", "start", "end", "seed", "hash_version", "coverage",
        "namespace", "targeting", "condition", "metrics", "sticky", "forced", "variants", "rollout", "safeguards",
        "allocation", "kind", "fraction", "winner",
        "forecast", "segments",
    ]
    static let variantKeys = ["key", "weight", "description", "paywall"]
    static let paywallKeys = ["offering", "trial_days", "discount_framing", "highlighted_plan", "copy"]
    static let copyKeys: [String: [String]] = [
        "static": ["strategy", "text"],
        "custom_variable": ["strategy", "template", "defaults"],
        "ai_generated": ["strategy", "instructions", "brief", "prompt", "generation", "guard", "fallback"],
    ]
    static let metricsKeys = ["primary", "guardrails", "secondary", "day0_window_hours", "minimum_effect", "sequential", "revenue_cap", "adjust_for", "maturity_grace_days"]
    static let guardKeys = ["max_words", "mention_once", "forbid", "forbid_words", "forbid_user_name"]
    static let conditionOperators: Set<String> = [
        "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$regex", "$in", "$nin", "$all", "$size", "$elemMatch", "$exists",
        "$type", "$not", "$and", "$or", "$nor", "$veq", "$vne", "$vgt", "$vgte", "$vlt", "$vlte", "$inGroup", "$notInGroup",
        "$ini", "$nini", "$alli", "$regexi",
    ]

    /// What the folder-level checks need even when the experiment itself did not decode.
    struct Outline {
        var id: String?
        var idPosition: SourcePosition
        var status: Experiment.Status?
        var namespace: Namespace?
        var namespacePosition: SourcePosition
        var kind: Experiment.Kind = .experiment
        /// Whether the file is a JSON object at all.
        var isObject = false
    }

    func decode(_ root: JSONNode) -> (Experiment?, Outline) {
        var outline = Outline(id: nil, idPosition: root.position, status: nil, namespace: nil, namespacePosition: root.position)
        let isHoldout: Bool = {
            guard case .object(let members) = root.kind, let kind = members.first(where: { $0.key == "kind" }),
                  case .string("holdout") = kind.value.kind else { return false }
            return true
        }()
        guard let r = ObjectReader(root, what: "the experiment", allowed: Self.topKeys,
                                   required: isHoldout ? ["id", "name", "status", "fraction"] : ["id", "name", "status", "variants"], sink: sink)
        else { return (nil, outline) }
        outline.isObject = true
        outline.kind = isHoldout ? .holdout : .experiment

        if let schema = r.string("$schema"), schema != "schema.json" {
            sink.warning("schema_reference", at: r.position("$schema"), "'$schema' is \"\(schema)\"", hint: "use \"schema.json\" so editors find the shipped schema")
        }
        let id = r.string("id") ?? ""
        outline.idPosition = r.position("id")
        if r.has("id") && !Self.isValidID(id) {
            sink.error("bad_id", at: r.position("id"), "experiment id '\(id)' is not valid",
                       hint: "use 1 to 64 lowercase letters, digits, '-' or '_', e.g. \"\(Self.suggestID(id))\"")
        }
        outline.id = r.has("id") ? id : nil
        let nameValue = r.string("name")
        let name = nameValue ?? ""
        if let nameValue, nameValue.trimmingSpaces().isEmpty {
            sink.error("empty_value", at: r.position("name"), "'name' is empty", hint: "give the experiment a name a product manager will recognise")
        }
        let status = decodeStatus(r)
        outline.status = status
        let (start, end) = decodeDates(r)
        let seed = r.string("seed")
        if let seed, seed.isEmpty { sink.error("empty_value", at: r.position("seed"), "'seed' is empty", hint: "remove it to use the experiment id") }
        var hashVersion = 2
        if let v = r.integer("hash_version") {
            if v == 1 || v == 2 { hashVersion = v } else {
                sink.error("bad_hash_version", at: r.position("hash_version"), "hash_version \(v) is not supported", hint: "use 2 (or 1 for old GrowthBook experiments)")
            }
        }
        var coverage = 1.0
        if let c = r.number("coverage") {
            if c >= 0 && c <= 1 { coverage = c } else {
                sink.error("coverage_out_of_range", at: r.position("coverage"), "coverage \(Self.format(c)) is outside [0, 1]", hint: "use a fraction such as 0.5 for half of eligible users")
            }
        }
        let namespace = r.node("namespace").flatMap(decodeNamespace)
        outline.namespace = namespace
        outline.namespacePosition = r.position("namespace")
        let targeting = r.node("targeting").map(decodeTargeting) ?? Targeting()
        let condition = r.node("condition").flatMap(decodeCondition)
        let errorsBeforeMetrics = sink.errorCount
        let metrics = r.node("metrics").map(decodeMetrics) ?? MetricsConfig()
        let metricsComplete = sink.errorCount == errorsBeforeMetrics
        // A holdout's membership is its hash alone (no sticky record), as a GrowthBook SDK sees it.
        let sticky = isHoldout ? false : (r.bool("sticky") ?? true)

        var variants: [Variant] = []
        // False when a variant was refused (its error said why): checks that look a key up among
        // the variants (forced, winner) are skipped rather than reporting the same problem again.
        var variantsComplete = true
        var fraction: Double? = nil
        if let k = r.string("kind"), Experiment.Kind(rawValue: k) == nil {
            sink.error("unknown_kind", at: r.position("kind"), "unknown kind '\(k)'", hint: "use \"holdout\" for a global holdout, or leave 'kind' out for an experiment")
        }
        if isHoldout {
            if r.has("variants") {
                sink.error("holdout_variants", at: r.position("variants"), "a holdout has no 'variants': its arms are 'holdout' and 'general'",
                           hint: "remove 'variants'; 'fraction' sets the holdout's share")
            }
            if let f = r.number("fraction") {
                if f > 0 && f <= 0.2 { fraction = f } else {
                    sink.error("fraction_out_of_range", at: r.position("fraction"), "holdout fraction \(Self.format(f)) must be above 0 and at most 0.2",
                               hint: "e.g. 0.05 holds 5% of users out of every other experiment")
                }
            }
            variants = Experiment.holdoutVariants(fraction: fraction ?? 0.05)
        } else if r.has("fraction") {
            sink.error("fraction_without_holdout", at: r.position("fraction"), "'fraction' belongs to a holdout (\"kind\": \"holdout\")",
                       hint: "use 'coverage' and variant weights for an experiment")
        }
        if !isHoldout, let items = r.array("variants") {
            if items.count < 2 {
                sink.error("too_few_variants", at: r.position("variants"), "an experiment needs at least two variants, found \(items.count)", hint: "add a control and at least one treatment")
            }
            var seen: [String: SourcePosition] = [:]
            for item in items {
                guard let (variant, keyPosition) = decodeVariant(item) else { variantsComplete = false; continue }
                if let first = seen[variant.key] {
                    sink.error("duplicate_variant_key", at: keyPosition, "variant key '\(variant.key)' is used twice (first at line \(first.line))", hint: "give each variant its own key")
                } else {
                    seen[variant.key] = keyPosition
                }
                variants.append(variant)
            }
        }
        let forced = decodeForced(r, variants: variants, variantsComplete: variantsComplete)
        let rollout = r.node("rollout").flatMap { decodeRollout($0, start: start, hasStart: r.has("start")) }
        let safeguards = r.node("safeguards").flatMap { decodeSafeguards($0, guardrails: metrics.guardrails, guardrailsComplete: metricsComplete) }
        let allocation = r.node("allocation").flatMap { decodeAllocation($0, top: r, arms: variants.count, isHoldout: isHoldout) }
        let winner = decodeWinner(r, status: status, end: end, variants: variants, isHoldout: isHoldout, variantsComplete: variantsComplete)
        let segments = decodeAttributeNames(r, "segments", what: "'segments'")
        for (name, position) in segments where Segments.standardDimensions.contains(name) {
            sink.warning("segment_always_kept", at: position, "segment '\(name)' is always kept",
                         hint: "\(Segments.standardDimensions.joined(separator: ", ")) need not be listed")
        }

        var experiment = Experiment(
            id: id, name: name, hypothesis: r.string("hypothesis"), owner: r.string("owner"), status: status ?? .draft,
            start: start, end: end, seed: seed.flatMap { $0.isEmpty ? nil : $0 }, hashVersion: hashVersion, coverage: coverage,
            namespace: namespace, targeting: targeting, condition: condition, metrics: metrics, sticky: sticky, forced: forced,
            variants: variants, rollout: rollout, safeguards: safeguards, segments: segments.map(\.name), sourcePath: sink.file,
            kind: isHoldout ? .holdout : .experiment, fraction: fraction, winner: winner)
        experiment.allocation = allocation
        let errorsBeforeForecast = sink.errorCount
        if let node = r.node("forecast") { experiment.forecast = decodeForecast(node) }
        // A refused forecast already has its error; its default horizon would only add a second one.
        for m in [metrics.primary] + metrics.secondary where m.isForecast && m.horizonDays != experiment.forecast.horizonDays && sink.errorCount == errorsBeforeForecast {
            sink.error("forecast_horizon", at: r.position("metrics"),
                       "metric '\(m.name)' forecasts day \(m.horizonDays ?? 0), but the forecast's horizon is day \(experiment.forecast.horizonDays)",
                       hint: "name '\(m.definition.name)_d\(experiment.forecast.horizonDays)', or set forecast.horizon_days to \(m.horizonDays ?? 0)")
        }
        return (experiment, outline)
    }

    // MARK: Top-level fields

    /// A GrowthBook condition object, checked (operators, then the linter's deeper checks).
    func decodeCondition(_ c: JSONNode) -> JSONValue? {
        guard case .object = c.kind else {
            sink.error("wrong_type", at: c.position, "'condition' must be an object, not \(c.typeName)", hint: "write a GrowthBook condition such as {\"country\": {\"$in\": [\"GB\"]}}")
            return nil
        }
        checkCondition(c)
        // Unknown operators were reported by checkCondition, with their position and a did-you-mean.
        for problem in conditionLinter(c.value) where !problem.contains("unknown operator") {
            sink.error("bad_condition", at: c.position, problem, hint: "this part of the condition would never match; see GrowthBook's condition operators")
        }
        return c.value
    }

    /// `winner`: required with status `shipped` (with `end`, when enrollment closed), a variant key, and nowhere else.
    private func decodeWinner(_ r: ObjectReader, status: Experiment.Status?, end: Date?, variants: [Variant], isHoldout: Bool,
                              variantsComplete: Bool) -> String? {
        let winner = r.string("winner")
        guard status == .shipped else {
            if r.has("winner") {
                sink.error("winner_without_shipped", at: r.position("winner"), "'winner' is only read when the status is \"shipped\"",
                           hint: "set \"status\": \"shipped\" to give everyone the winner's paywall, or remove 'winner'")
            }
            return nil
        }
        if isHoldout {
            sink.error("shipped_holdout", at: r.position("status"), "a holdout cannot be shipped", hint: "stop it (\"status\": \"stopped\") to release its users")
            return nil
        }
        guard let winner else {
            if !r.has("winner") {
                // No arm is named here: which arm to ship is the report's verdict, not the file's order.
                sink.error("missing_winner", at: r.position("status"), "a shipped experiment needs 'winner', the variant everyone now gets",
                           hint: "add \"winner\": the key of the arm to ship (one of: \(variants.map(\.key).joined(separator: ", "))); 'abctl report \({ if case .string(let id)? = r.node("id")?.kind { id } else { "ID" } }())' says which arm its verdict keeps")
            }
            return nil
        }
        let keys = variants.map(\.key)
        guard keys.contains(winner) || !variantsComplete else {
            sink.error("unknown_winner", at: r.position("winner"), "winner '\(winner)' is not a variant of this experiment",
                       hint: Spelling.closest(to: winner, in: keys).map { "did you mean '\($0)'?" } ?? "use one of: \(keys.joined(separator: ", "))")
            return nil
        }
        if end == nil {
            sink.error("shipped_without_end", at: r.position("status"), "a shipped experiment needs 'end', when enrollment closed",
                       hint: "set \"end\" to the time you shipped, e.g. \"\(RFC3339.format(Date()).prefix(10))T00:00:00Z\"; users exposed before it keep counting")
        }
        return winner
    }

    private func decodeForecast(_ node: JSONNode) -> ForecastConfig {
        var config = ForecastConfig()
        guard let r = ObjectReader(node, what: "'forecast'", allowed: ["horizon_days"], required: [], sink: sink) else { return config }
        if let days = r.integer("horizon_days") {
            if ForecastConfig.horizonRange.contains(days) { config.horizonDays = days } else {
                sink.error("bad_horizon", at: r.position("horizon_days"), "forecast horizon_days \(days) is outside 1 to \(ForecastConfig.horizonRange.upperBound)",
                           hint: "use 365 for a year's revenue per user")
            }
        }
        return config
    }

    private func decodeStatus(_ r: ObjectReader) -> Experiment.Status? {
        guard let text = r.string("status") else { return nil }
        if let s = Experiment.Status(rawValue: text) { return s }
        let names = Experiment.Status.allCases.map(\.rawValue)
        let guess = Spelling.closest(to: text.lowercased(), in: names)
        sink.error("unknown_status", at: r.position("status"), "unknown status '\(text)'",
                   hint: guess.map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
        return nil
    }

    private func decodeDates(_ r: ObjectReader) -> (Date?, Date?) {
        func date(_ key: String) -> Date? {
            guard let value = r.nullableString(key), let text = value else { return nil }
            guard let d = RFC3339.parse(text), text.hasSuffix("Z") || text.hasSuffix("z") || text.hasSuffix("+00:00") else {
                sink.error("bad_date", at: r.position(key), "'\(key)' \"\(text)\" is not an RFC 3339 UTC time", hint: "write it like \"2026-12-01T00:00:00Z\", or null")
                return nil
            }
            return d
        }
        let start = date("start"), end = date("end")
        if let start, let end, end <= start {
            sink.error("end_before_start", at: r.position("end"), "'end' (\(RFC3339.format(end))) is not after 'start' (\(RFC3339.format(start)))", hint: "move the end later, or set it to null for an open-ended experiment")
        } else if let end, end <= now, r.string("status") == Experiment.Status.running.rawValue {
            // Not an error: the file is valid and assigns nobody, which is what an ended experiment does.
            // (An end already refused above is one problem, not also this warning.)
            sink.warning("running_after_end", at: r.position("end"),
                         "the experiment is running but its 'end' (\(RFC3339.format(end))) has passed: it assigns nobody new",
                         hint: "set \"status\" to \"stopped\" (or \"shipped\" with a winner), or move 'end' later")
        }
        return (start, end)
    }

    private func decodeNamespace(_ node: JSONNode) -> Namespace? {
        guard let r = ObjectReader(node, what: "'namespace'", allowed: ["id", "range"], required: ["id", "range"], sink: sink) else { return nil }
        let id = r.string("id")
        if let id, id.isEmpty { sink.error("empty_value", at: r.position("id"), "namespace id is empty", hint: "name the namespace, e.g. \"paywall\"") }
        guard let items = r.array("range") else { return nil }
        let bounds = items.compactMap { item -> Double? in if case .number(let n) = item.kind { n } else { nil } }
        guard items.count == 2, bounds.count == 2 else {
            let found = items.count != 2 ? "\(items.count) \(items.count == 1 ? "item" : "items")"
                : items.first { if case .number = $0.kind { false } else { true } }.map { "a \($0.typeName)" } ?? "?"
            sink.error("namespace_range", at: r.position("range"), "namespace range must be two numbers [start, end], not \(found)", hint: "e.g. [0.0, 0.5]")
            return nil
        }
        guard bounds[0] >= 0, bounds[1] <= 1, bounds[0] < bounds[1] else {
            sink.error("namespace_range", at: r.position("range"), "namespace range [\(Self.format(bounds[0])), \(Self.format(bounds[1]))] is not inside [0, 1] with start < end", hint: "use a slice such as [0.0, 0.5]")
            return nil
        }
        guard let id, !id.isEmpty else { return nil }
        return Namespace(id: id, start: bounds[0], end: bounds[1])
    }

    private func decodeTargeting(_ node: JSONNode) -> Targeting {
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'targeting' must be an object, not \(node.typeName)")
            return Targeting()
        }
        for m in members where !Targeting.keys.contains(m.key) {
            let guess = Spelling.closest(to: m.key, in: Targeting.keys)
            sink.error("unknown_targeting_attribute", at: m.keyPosition, "unknown targeting attribute '\(m.key)'",
                       hint: guess.map { "did you mean '\($0)'?" } ?? "targeting takes \(Targeting.keys.joined(separator: ", ")); use 'condition' for anything else")
        }
        // Unknown keys were reported above with their own code; read the known ones.
        let r = ObjectReader(JSONNode(kind: .object(members.filter { Targeting.keys.contains($0.key) }), position: node.position),
                             what: "'targeting'", allowed: Targeting.keys, sink: sink)!
        var t = Targeting()
        for key in ["platform", "country", "language"] {
            guard let values = r.strings(key) else { continue }
            if values.isEmpty { sink.error("empty_value", at: r.position(key), "targeting '\(key)' is an empty list, so nobody would match", hint: "list the accepted values, or remove the key") }
            switch key {
            case "platform": t.platform = values
            case "country": t.country = values
            default: t.language = values
            }
        }
        if let text = r.string("app_version") {
            if let c = VersionConstraint(text) { t.appVersion = c } else {
                sink.error("bad_version_constraint", at: r.position("app_version"), "app_version constraint \"\(text)\" is malformed", hint: "write an operator (>=, >, <=, <, ==) and a dotted version, e.g. \">=2.1.0\"")
            }
        }
        t.newUsersOnly = r.bool("new_users_only")
        return t
    }

    /// A list of exposure attribute names (`segments`, `metrics.adjust_for`): non-empty strings of
    /// at most 256 bytes, none twice, at most 32.
    private func decodeAttributeNames(_ r: ObjectReader, _ key: String, what: String) -> [(name: String, position: SourcePosition)] {
        guard let items = r.array(key) else { return [] }
        if items.count > Segments.maxNames {
            sink.error("too_many_values", at: r.position(key), "\(what) lists \(items.count) attributes; at most \(Segments.maxNames)",
                       hint: "an exposure carries at most \(Segments.maxNames) attributes")
        }
        var out: [(name: String, position: SourcePosition)] = []
        for item in items {
            guard case .string(let name) = item.kind else {
                sink.error("wrong_type", at: item.position, "items of \(what) must be attribute names, not \(item.typeName)")
                continue
            }
            if name.isEmpty || name.utf8.count > Segments.maxNameBytes {
                sink.error("bad_attribute_name", at: item.position, "attribute name in \(what) must be 1 to \(Segments.maxNameBytes) bytes",
                           hint: "use the key the app sends in the exposure's attributes, e.g. \"country\"")
                continue
            }
            if out.contains(where: { $0.name == name }) {
                sink.error("duplicate_value", at: item.position, "'\(name)' appears twice in \(what)", hint: "list each attribute once")
                continue
            }
            out.append((name, item.position))
        }
        return out
    }

    private func checkCondition(_ node: JSONNode) {
        switch node.kind {
        case .object(let members):
            for m in members {
                if m.key.hasPrefix("$") && !Self.conditionOperators.contains(m.key) {
                    let guess = Spelling.closest(to: m.key, in: Array(Self.conditionOperators))
                    sink.error("unknown_condition_operator", at: m.keyPosition, "unknown condition operator '\(m.key)'",
                               hint: guess.map { "did you mean '\($0)'?" } ?? "see GrowthBook's condition operators")
                }
                checkCondition(m.value)
            }
        case .array(let items): items.forEach(checkCondition)
        default: break
        }
    }

    private func decodeMetrics(_ node: JSONNode) -> MetricsConfig {
        var m = MetricsConfig()
        guard let r = ObjectReader(node, what: "'metrics'", allowed: Self.metricsKeys, sink: sink) else { return m }
        func metric(_ name: String, at position: SourcePosition) -> Metric? {
            switch Metric.parse(name) {
            case .success(let metric): return metric
            case .failure(.horizonOutOfRange(let base, let days)) where days.isEmpty:
                sink.error("unknown_metric", at: position, "metric '\(name)' needs the forecast's horizon",
                           hint: "write '\(base)_d365' for the forecast at day 365 (forecast.horizon_days)")
            case .failure(.horizonOutOfRange(let base, let days)):
                sink.error("unknown_metric", at: position, "metric '\(name)' has a horizon of \(days) days; horizons are whole days from 1 to \(Metric.maxHorizonDays)",
                           hint: "e.g. '\(base)_d14' counts what users did in their first 14 days")
            case .failure(.unknown(let suggestion)):
                let names = MetricTable.all.filter { !$0.isForecast }.map(\.name)
                let forecasts = MetricTable.all.filter(\.isForecast).map { "\($0.name)_dN" }
                sink.error("unknown_metric", at: position, "unknown metric '\(name)'",
                           hint: suggestion.map { "did you mean '\($0)'? (any metric may end in _dN, N from 1 to \(Metric.maxHorizonDays))" }
                               ?? "use one of: \(names.joined(separator: ", ")), optionally followed by _dN (N from 1 to \(Metric.maxHorizonDays)); or \(forecasts.joined(separator: ", "))")
            }
            return nil
        }
        func metrics(_ key: String) -> [Metric]? {
            r.array(key).map { items in
                items.compactMap { item in
                    guard case .string(let s) = item.kind else {
                        sink.error("wrong_type", at: item.position, "\(key) must be metric names, not \(item.typeName)")
                        return nil
                    }
                    return metric(s, at: item.position)
                }
            }
        }
        if let p = r.string("primary"), let metric = metric(p, at: r.position("primary")) { m.primary = metric }
        if let g = metrics("guardrails") {
            m.guardrails = g.filter { !$0.isForecast }
            if let f = g.first(where: \.isForecast) {
                sink.error("forecast_guardrail", at: r.position("guardrails"), "'\(f.name)' cannot be a guardrail",
                           hint: "a forecast may be the primary metric or a secondary one")
            }
        }
        if let s = metrics("secondary") { m.secondary = s }
        if let node = r.node("revenue_cap") { m.revenueCap = decodeRevenueCap(node) }
        if let h = r.number("day0_window_hours") {
            if h > 0 && h <= 24 * 31 { m.day0WindowHours = h } else {
                sink.error("out_of_range", at: r.position("day0_window_hours"), "day0_window_hours \(Self.format(h)) must be above 0 and at most 744", hint: "the usual window is 24")
            }
        }
        if let e = r.number("minimum_effect") {
            if e > 0 && e <= 10 { m.minimumEffect = e } else {
                sink.error("out_of_range", at: r.position("minimum_effect"), "minimum_effect \(Self.format(e)) must be a positive relative lift", hint: "e.g. 0.1 for a 10% relative lift")
            }
        }
        if let s = r.bool("sequential") { m.sequential = s }
        if let g = r.integer("maturity_grace_days") {
            if (0...60).contains(g) { m.maturityGraceDays = g } else {
                sink.error("out_of_range", at: r.position("maturity_grace_days"), "maturity_grace_days \(g) must be a whole number from 0 to 60",
                           hint: "the days after the longest trial before a user's conversion counts as settled; 3 by default")
            }
        }
        m.adjustFor = decodeAttributeNames(r, "adjust_for", what: "'metrics.adjust_for'").map(\.name)
        return m
    }

    /// `{"percentile": p}` with 0 < p < 1, or `{"absolute": x}` with x > 0.
    private func decodeRevenueCap(_ node: JSONNode) -> RevenueCap? {
        let hint = "write {\"percentile\": 0.99} (the 99th percentile of paying users' revenue) or {\"absolute\": 150}"
        guard case .object(let members) = node.kind, members.count == 1, let member = members.first,
              member.key == "percentile" || member.key == "absolute" else {
            // Name what was found: a value of another type, or the object's keys.
            let found: String
            if case .object(let members) = node.kind {
                found = members.isEmpty ? "an empty object" : "an object with " + members.map { "'\($0.key)'" }.joined(separator: ", ")
            } else {
                found = node.typeName
            }
            sink.error("invalid_revenue_cap", at: node.position, "revenue_cap must be an object with exactly one of 'percentile' or 'absolute', not \(found)", hint: hint)
            return nil
        }
        guard case .number(let x) = member.value.kind else {
            sink.error("wrong_type", at: member.value.position, "revenue_cap.\(member.key) must be a number, not \(member.value.typeName)", hint: hint)
            return nil
        }
        if member.key == "percentile" {
            guard x > 0 && x < 1 else {
                sink.error("out_of_range", at: member.value.position, "revenue_cap.percentile \(Self.format(x)) must be between 0 and 1 (exclusive)",
                           hint: "a fraction: 0.99 caps at the 99th percentile")
                return nil
            }
            return .percentile(x)
        }
        guard x > 0 && x.isFinite else {
            sink.error("out_of_range", at: member.value.position, "revenue_cap.absolute \(Self.format(x)) must be a positive amount", hint: hint)
            return nil
        }
        return .absolute(x)
    }

    private func decodeForced(_ r: ObjectReader, variants: [Variant], variantsComplete: Bool) -> [UserID: String] {
        guard let node = r.node("forced") else { return [:] }
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "'forced' must be an object of user id to variant key, not \(node.typeName)")
            return [:]
        }
        var forced: [UserID: String] = [:]
        var keys: [String] = []
        for v in variants where !keys.contains(v.key) { keys.append(v.key) }
        for m in members {
            guard case .string(let key) = m.value.kind else {
                sink.error("wrong_type", at: m.value.position, "forced user '\(m.key)' must map to a variant key string, not \(m.value.typeName)")
                continue
            }
            if variantsComplete && !keys.isEmpty && !keys.contains(key) {
                sink.error("forced_unknown_variant", at: m.value.position, "forced user '\(m.key)' points at variant '\(key)', which this experiment does not have",
                           hint: Spelling.closest(to: key, in: keys).map { "did you mean '\($0)'?" } ?? "use one of: \(keys.joined(separator: ", "))")
                continue
            }
            forced[UserID(m.key)] = key
        }
        return forced
    }

    // MARK: Variants

    private func decodeVariant(_ node: JSONNode) -> (Variant, SourcePosition)? {
        guard let r = ObjectReader(node, what: "a variant", allowed: Self.variantKeys, required: ["key", "paywall"], sink: sink) else { return nil }
        let key = r.string("key") ?? ""
        if r.has("key") && !Self.isValidID(key) {
            sink.error("bad_variant_key", at: r.position("key"), "variant key '\(key)' is not valid", hint: "use 1 to 64 lowercase letters, digits, '-' or '_'")
        }
        var weight = 1.0
        if let w = r.number("weight") {
            if w > 0 && w.isFinite { weight = w } else {
                sink.error("bad_weight", at: r.position("weight"), "weight of variant '\(key)' must be positive, not \(Self.format(w))", hint: "weights are relative, e.g. 1 and 1 for an even split")
            }
        }
        guard let p = r.node("paywall") else {
            return (Variant(key: key, weight: weight, paywall: Paywall(offering: "", trialDays: 0, copy: .staticText(""))), r.position("key"))
        }
        return (Variant(key: key, weight: weight, paywall: decodePaywall(p, what: "variant '\(key)' paywall", copyOwner: "variant '\(key)'")), r.position("key"))
    }

    /// A paywall object, or null (no paywall: a holdout arm, an audience that shows nothing).
    /// A paywall that does not decode gives a placeholder after its errors were reported.
    func decodePaywall(_ p: JSONNode, what: String, copyOwner: String) -> Paywall? {
        if case .null = p.kind { return nil }
        guard let pr = ObjectReader(p, what: what, allowed: Self.paywallKeys, required: ["offering", "trial_days", "copy"], sink: sink)
        else { return Paywall(offering: "", trialDays: 0, copy: .staticText("")) }

        let offering = pr.string("offering") ?? ""
        if pr.has("offering"), let products, products.offerings[offering] == nil {
            let known = products.offerings.keys.sorted()
            sink.error("unknown_offering", at: pr.position("offering"), "offering '\(offering)' is not in products.json",
                       hint: Spelling.closest(to: offering, in: known).map { "did you mean '\($0)'?" } ?? "known offerings: \(known.joined(separator: ", "))")
        }
        var trialDays = 0
        if let d = pr.integer("trial_days") {
            if d == 0 || (1...31).contains(d) { trialDays = d } else {
                sink.error("trial_days_out_of_range", at: pr.position("trial_days"), "trial_days \(d) is out of range", hint: "use 0 for no trial, or 1 to 31 days")
            }
        }
        var framing = DiscountFraming.none
        if let f = pr.string("discount_framing") {
            if let parsed = DiscountFraming(rawValue: f) { framing = parsed } else {
                let names = DiscountFraming.allCases.map(\.rawValue)
                sink.error("unknown_discount_framing", at: pr.position("discount_framing"), "unknown discount_framing '\(f)'",
                           hint: Spelling.closest(to: f, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
            }
        }
        if let products, framing != .none, products.offerings[offering] != nil {
            // The claim must hold in every storefront: one error per storefront currency it fails in.
            let plans = products.offerings[offering]?.values ?? [:].values
            for currency in products.storefrontCurrencies {
                // A missing price was named in products.json's own errors.
                guard plans.allSatisfy({ $0.price(in: currency, default: products.currency) != nil }) else { continue }
                do {
                    _ = try products.discountText(framing, offering: offering, in: currency)
                } catch {
                    let countries = products.countries(pricedIn: currency)
                    let whereShown = currency == products.currency ? (products.storefronts.isEmpty ? "" : " in the default storefront (\(currency))")
                        : " in storefront\(countries.count == 1 ? "" : "s") \(countries.joined(separator: ", ")) (\(currency))"
                    sink.error("discount_claim", at: pr.position("discount_framing"), "\(framing.rawValue) cannot be shown for '\(offering)'\(whereShown): \(error)",
                               hint: "check the prices in products.json, or use \"none\"")
                    if case .needsMonthlyAndAnnual = error { break }
                }
            }
        }
        let highlighted = pr.string("highlighted_plan")
        if let highlighted, let products, let plans = products.offerings[offering], plans[highlighted] == nil {
            let known = plans.keys.sorted()
            sink.error("unknown_plan", at: pr.position("highlighted_plan"), "plan '\(highlighted)' is not in offering '\(offering)'",
                       hint: Spelling.closest(to: highlighted, in: known).map { "did you mean '\($0)'?" } ?? "plans: \(known.joined(separator: ", "))")
        }
        let copy = pr.node("copy").flatMap { decodeCopy($0, variant: copyOwner) } ?? .staticText("")
        return Paywall(offering: offering, trialDays: trialDays, discountFraming: framing, highlightedPlan: highlighted, copy: copy)
    }

    // MARK: Copy

    /// `owner` names what the copy belongs to in messages, e.g. "variant 'control'".
    private func decodeCopy(_ node: JSONNode, variant owner: String) -> CopySpec? {
        let what = "\(owner) copy"
        guard case .object(let members) = node.kind else {
            sink.error("wrong_type", at: node.position, "\(what) must be an object, not \(node.typeName)")
            return nil
        }
        guard let strategyMember = members.first(where: { $0.key == "strategy" }) else {
            sink.error("missing_key", at: node.position, "\(what) is missing the required key 'strategy'", hint: "use \"static\", \"custom_variable\" or \"ai_generated\"")
            return nil
        }
        guard case .string(let strategy) = strategyMember.value.kind, let allowed = Self.copyKeys[strategy] else {
            let names = Self.copyKeys.keys.sorted()
            let text = if case .string(let s) = strategyMember.value.kind { s } else { strategyMember.value.typeName }
            sink.error("unknown_copy_strategy", at: strategyMember.value.position, "unknown copy strategy '\(text)'",
                       hint: Spelling.closest(to: text, in: names).map { "did you mean '\($0)'?" } ?? "use one of: \(names.joined(separator: ", "))")
            return nil
        }
        switch strategy {
        case "static":
            guard let r = ObjectReader(node, what: what, allowed: allowed, required: ["text"], sink: sink) else { return nil }
            let text = r.string("text") ?? ""
            if r.has("text") && text.trimmingSpaces().isEmpty { sink.error("empty_value", at: r.position("text"), "static copy text is empty", hint: "write the line the paywall shows") }
            return .staticText(text)
        case "custom_variable":
            guard let r = ObjectReader(node, what: what, allowed: allowed, required: ["template"], sink: sink) else { return nil }
            return decodeCustomVariable(r)
        default:
            guard let r = ObjectReader(node, what: what, allowed: allowed, required: ["instructions", "prompt"], sink: sink) else { return nil }
            return decodeAI(r, variant: owner)
        }
    }

    /// The template under `key`, every malformed placeholder reported (not just the first); nil when any is.
    /// `key` is "prompt" or "template", and the hints speak to that rule: prompts take only {{ brief }}.
    private func template(_ r: ObjectReader, _ key: String) -> CopyTemplate? {
        guard let text = r.string(key) else { return nil }
        let scan = CopyTemplate.scan(text)
        for problem in scan.problems {
            sink.error("malformed_placeholder", at: r.position(key), "\(key): \(problem.message) (at character \(problem.offset + 1))",
                       hint: Self.placeholderHint(problem, inPrompt: key == "prompt"))
        }
        return scan.problems.isEmpty ? try? CopyTemplate(parsing: text) : nil
    }

    /// What to write instead of a malformed placeholder, for the kind of text it is in.
    static func placeholderHint(_ problem: CopyTemplate.Problem, inPrompt: Bool) -> String {
        let example = inPrompt ? "{{ brief }}" : "{{ custom.userName }}"
        guard let expression = problem.expression else {
            return problem.message.hasPrefix("'}}'")
                ? "open the placeholder with '{{', as in \(example), or remove the '}}'"
                : "close the placeholder with '}}', as in \(example)"
        }
        if inPrompt {
            if Spelling.closest(to: expression, in: ["brief"]) != nil { return "did you mean {{ brief }}?" }
            return "a prompt's only placeholder is {{ brief }}; describe the user through brief rules"
        }
        if expression.hasPrefix("custom.") {
            return "a variable name is letters, digits and '_', not starting with a digit, e.g. {{ custom.userName }}"
        }
        if let guess = Spelling.closest(to: expression, in: ["brief"]) { return "did you mean {{ \(guess) }}? only AI prompts take it; templates take {{ custom.NAME }}" }
        return "write {{ custom.\(Self.variableName(from: expression)) }}"
    }

    /// A variable name made from whatever stood between the braces, for a hint.
    private static func variableName(from expression: String) -> String {
        let kept = String(expression.split(separator: ".").last ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard let first = kept.first, first.isLetter || first == "_" else { return "userName" }
        return kept
    }

    private func decodeCustomVariable(_ r: ObjectReader) -> CopySpec? {
        var defaults: [String: String] = [:]
        if let d = r.node("defaults") {
            if case .object(let members) = d.kind {
                for m in members {
                    guard case .string(let s) = m.value.kind else {
                        sink.error("wrong_type", at: m.value.position, "default for '\(m.key)' must be a string, not \(m.value.typeName)")
                        continue
                    }
                    defaults[m.key] = s
                }
            } else {
                sink.error("wrong_type", at: d.position, "'defaults' must be an object of variable name to text, not \(d.typeName)")
            }
        }
        let template = template(r, "template")
        // The well-formed placeholders, read even when others are malformed, so that every problem shows at once.
        guard case .string(let text)? = r.node("template")?.kind else { return nil }
        let scan = CopyTemplate.scan(text)
        let placeholders = scan.segments.compactMap { if case .placeholder(let e) = $0 { e } else { nil } }
        for e in placeholders where !e.hasPrefix("custom.") {
            sink.error("malformed_placeholder", at: r.position("template"), "template uses {{ \(e) }}, which only AI prompts may use", hint: "write {{ custom.NAME }}")
        }
        var customNames: [String] = []
        for e in placeholders where e.hasPrefix("custom.") && !customNames.contains(String(e.dropFirst("custom.".count))) {
            customNames.append(String(e.dropFirst("custom.".count)))
        }
        for name in customNames where defaults[name] == nil {
            sink.error("placeholder_without_default", at: r.position("template"), "placeholder {{ custom.\(name) }} has no default",
                       hint: "add \"defaults\": {\"\(name)\": \"…\"} so users without the variable still see a sentence")
        }
        if customNames.isEmpty && scan.problems.isEmpty {
            sink.warning("template_without_placeholder", at: r.position("template"), "template has no {{ custom.NAME }} placeholder", hint: "use the static strategy for fixed text")
        }
        return template.map { .customVariable(template: $0, defaults: defaults) }
    }

    private func decodeAI(_ r: ObjectReader, variant: String) -> CopySpec? {
        let instructions = r.string("instructions") ?? ""
        let brief = r.node("brief").map(decodeBrief) ?? Brief(rules: [])
        let prompt = template(r, "prompt")
        // The well-formed placeholders, read even when others are malformed, so that every problem shows at once.
        if case .string(let text)? = r.node("prompt")?.kind {
            let scan = CopyTemplate.scan(text)
            let placeholders = scan.segments.compactMap { if case .placeholder(let e) = $0 { e } else { nil } }
            for e in placeholders where e != "brief" {
                sink.error("malformed_placeholder", at: r.position("prompt"), "prompt uses {{ \(e) }}; prompts take only {{ brief }}",
                           hint: "free text from the request never reaches a prompt; describe the user through brief rules")
            }
            // A malformed placeholder may be the brief mistyped; its error says so.
            if !placeholders.contains("brief") && scan.problems.isEmpty {
                sink.warning("prompt_without_brief", at: r.position("prompt"), "prompt has no {{ brief }}", hint: "without it every user gets the same prompt")
            }
        }
        var temperature: Double? = nil, maxTokens: Int? = nil
        if let g = r.node("generation"), let gr = ObjectReader(g, what: "'generation'", allowed: ["temperature", "max_tokens", "top_p"], sink: sink) {
            if let t = gr.number("temperature") {
                if t >= 0 && t <= 2 { temperature = t } else { sink.error("out_of_range", at: gr.position("temperature"), "temperature \(Self.format(t)) is outside [0, 2]") }
            }
            if let m = gr.integer("max_tokens") {
                if m > 0 { maxTokens = m } else { sink.error("out_of_range", at: gr.position("max_tokens"), "max_tokens must be positive, not \(m)") }
            }
            if let p = gr.number("top_p"), !(p > 0 && p <= 1) { sink.error("out_of_range", at: gr.position("top_p"), "top_p \(Self.format(p)) is outside (0, 1]") }
        }
        let guardRules = r.node("guard").map(decodeGuard) ?? CopyGuard()
        let fallback = r.string("fallback") ?? ""
        if r.has("fallback") {
            if fallback.trimmingSpaces().isEmpty {
                sink.error("missing_fallback", at: r.position("fallback"), "ai_generated copy has an empty fallback", hint: "write the line to show when no model answer can be used")
            } else {
                // One error per broken rule, each with the fix for that rule: the fallback ships whenever generation fails.
                for violation in guardRules.check(fallback).violations {
                    sink.error("fallback_breaks_guard", at: r.position("fallback"),
                               "the fallback breaks its own guard's \(violation.rule): \(violation.message)",
                               hint: Self.guardHint(violation, guardRules: guardRules))
                }
            }
        } else {
            sink.error("missing_fallback", at: r.node.position, "ai_generated copy of \(variant) has no fallback",
                       hint: "add \"fallback\": \"…\", the line shown when no model answer can be used")
        }
        return .aiGenerated(AIRecipe(instructions: instructions, brief: brief, prompt: prompt ?? (try! CopyTemplate(parsing: "")),
                                     temperature: temperature, maxTokens: maxTokens, guardRules: guardRules, fallback: fallback))
    }

    /// How to rewrite a fallback that breaks one guard rule.
    static func guardHint(_ violation: CopyGuard.Violation, guardRules: CopyGuard) -> String {
        switch violation.rule {
        case "max_words": return "shorten the fallback to at most \(guardRules.maxWords ?? 0) words"
        case "forbid":
            let found = guardRules.forbid.filter { !$0.isEmpty && violation.message.contains("\"\($0)\"") }
            return "take \(found.map { "\"\($0)\"" }.joined(separator: ", ")) out of the fallback (listed in guard.forbid)"
        case "forbid_words": return "reword the fallback without the words listed in guard.forbid_words"
        case "mention_once":
            let name = guardRules.mentionOnce.first { violation.message.contains("\"\($0)\"") } ?? ""
            return "name \"\(name)\" exactly once in the fallback (guard.mention_once)"
        case "forbid_user_name": return "leave the user's name out of the fallback"
        default: return "rewrite the fallback so it passes the guard; it ships whenever generation fails"
        }
    }

    private func decodeBrief(_ node: JSONNode) -> Brief {
        guard let r = ObjectReader(node, what: "'brief'", allowed: ["rules"], required: ["rules"], sink: sink), let items = r.array("rules") else { return Brief(rules: []) }
        var rules: [BriefRule] = []
        for item in items {
            guard let rr = ObjectReader(item, what: "a brief rule", allowed: ["when", "say"], required: ["when", "say"], sink: sink) else { continue }
            let say = rr.string("say") ?? ""
            if rr.has("say") && say.trimmingSpaces().isEmpty { sink.error("empty_value", at: rr.position("say"), "brief rule 'say' is empty") }
            guard let when = rr.node("when"), case .object(let members) = when.kind else {
                if let when = rr.node("when") { sink.error("wrong_type", at: when.position, "'when' must be an object, not \(when.typeName)") }
                continue
            }
            var signal: String? = nil
            var test: BriefRule.Test? = nil
            for m in members {
                switch (m.key, m.value.kind) {
                case ("signal", .string(let s)): signal = s
                case ("equals", .string(let s)): test = .equals(s)
                case ("in", .array(let values)):
                    let strings = values.compactMap { v -> String? in if case .string(let s) = v.kind { s } else { nil } }
                    if strings.count != values.count || strings.isEmpty {
                        sink.error("wrong_type", at: m.value.position, strings.isEmpty && values.isEmpty ? "'in' must be a non-empty list of strings, not an empty list"
                                   : "'in' must be a non-empty list of strings, not a list holding a \(values.first { if case .string = $0.kind { false } else { true } }?.typeName ?? "string")")
                    }
                    test = .isIn(strings)
                case ("present", .bool(let b)): test = .present(b)
                case ("signal", _), ("equals", _), ("in", _), ("present", _):
                    sink.error("wrong_type", at: m.value.position, "brief rule '\(m.key)' has the wrong type (\(m.value.typeName))",
                               hint: "signal and equals take a string, in a list of strings, present true or false")
                default:
                    sink.error("unknown_brief_operator", at: m.keyPosition, "unknown brief rule operator '\(m.key)'",
                               hint: Spelling.closest(to: m.key, in: ["equals", "in", "present"]).map { "did you mean '\($0)'?" } ?? "use equals, in or present")
                }
            }
            let operators = members.filter { ["equals", "in", "present"].contains($0.key) }.count
            if signal == nil && !members.contains(where: { $0.key == "signal" }) {
                sink.error("missing_key", at: when.position, "brief rule 'when' is missing 'signal'", hint: "name the onboarding signal, e.g. \"signal\": \"companion\"")
            }
            if operators != 1 && members.allSatisfy({ ["signal", "equals", "in", "present"].contains($0.key) }) {
                sink.error("brief_operator_count", at: when.position, "brief rule 'when' needs exactly one of equals, in, present (found \(operators))")
            }
            if let signal, let test { rules.append(BriefRule(signal: signal, test: test, say: say)) }
        }
        return Brief(rules: rules)
    }

    private func decodeGuard(_ node: JSONNode) -> CopyGuard {
        guard let r = ObjectReader(node, what: "'guard'", allowed: Self.guardKeys, sink: sink) else { return CopyGuard() }
        var g = CopyGuard()
        if let m = r.integer("max_words") {
            if m > 0 { g.maxWords = m } else { sink.error("out_of_range", at: r.position("max_words"), "max_words must be positive, not \(m)") }
        }
        g.mentionOnce = r.strings("mention_once") ?? []
        g.forbid = r.strings("forbid") ?? []
        g.forbidWords = r.strings("forbid_words") ?? []
        g.forbidUserName = r.bool("forbid_user_name") ?? false
        return g
    }

    // MARK: Helpers

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }
    }

    static func suggestID(_ id: String) -> String {
        let mapped = id.lowercased().map { c -> Character in c.isASCII && (c.isLetter || c.isNumber || c == "_") ? c : "-" }
        let s = String(mapped.prefix(64))
        return s.isEmpty ? "my-experiment" : s
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}
