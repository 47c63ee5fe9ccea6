import ExperimentDefinitions
import Foundation

extension Truth {
    /// A truth file problem, with where it is.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Reads a truth file (format on `Truth`); variants it does not name behave by its `default` rates.
    public static func load(path: String) throws(LoadError) -> Truth {
        guard let data = FileManager.default.contents(atPath: path) else { throw LoadError(message: "cannot read truth file \(path)") }
        let root: JSONNode
        do { root = try JSONReader.parse([UInt8](data)) } catch {
            throw LoadError(message: "\(path):\(error.position): not valid JSON: \(error.message)")
        }
        return try parse(root.value, file: path)
    }

    static func parse(_ root: JSONValue, file: String) throws(LoadError) -> Truth {
        var truth = Truth()
        guard case .object(let members) = root else { throw LoadError(message: "\(file): the truth must be a JSON object") }
        // Variant rates override the default, so the default is read first wherever it stands in the file.
        for (key, value) in members.filter({ $0.0 == "default" }) + members.filter({ $0.0 != "default" }) {
            switch key {
            case "default":
                let parsed = try rates(value, over: Rates(), at: "\(file): default")
                truth.defaultRates = parsed.rates
                truth.defaultBy = parsed.by
            case "experiments":
                guard case .object(let experiments) = value else { throw LoadError(message: "\(file): 'experiments' must be an object") }
                for (experiment, variantsValue) in experiments {
                    guard case .object(let variants) = variantsValue else { throw LoadError(message: "\(file): experiments.\(experiment) must be an object of variants") }
                    var table: [String: Rates] = [:], keys: [String: Set<String>] = [:], by: [String: [SegmentRates]] = [:]
                    for (variant, v) in variants {
                        let parsed = try rates(v, over: truth.defaultRates, at: "\(file): experiments.\(experiment).\(variant)")
                        table[variant] = parsed.rates
                        keys[variant] = parsed.keys
                        if !parsed.by.isEmpty { by[variant] = parsed.by }
                    }
                    truth.variants[experiment] = table
                    truth.variantKeys[experiment] = keys
                    if !by.isEmpty { truth.variantBy[experiment] = by }
                }
            case "ai_copy":
                let v = try numbers(value, allowed: ["on_device", "guard_reject", "timeout"], at: "\(file): ai_copy")
                if let x = v["on_device"] { truth.aiCopy.onDevice = x }
                if let x = v["guard_reject"] { truth.aiCopy.guardReject = x }
                if let x = v["timeout"] { truth.aiCopy.timeout = x }
            case "population": truth.population = try population(value, over: truth.population, at: "\(file): population")
            default: throw LoadError(message: "\(file): unknown key '\(key)' (expected default, experiments, ai_copy, population)")
            }
        }
        try checkSegments(truth, file: file)
        return truth
    }

    /// Rates over `base`, the keys the object sets itself, and its rates by segment (`by`).
    private static func rates(_ value: JSONValue, over base: Rates, at place: String) throws(LoadError)
        -> (rates: Rates, keys: Set<String>, by: [SegmentRates]) {
        var r = base
        var keys: Set<String> = []
        var by: [SegmentRates] = []
        guard case .object(var members) = value else { throw LoadError(message: "\(place) must be an object") }
        if let i = members.firstIndex(where: { $0.0 == "renewal_churn" }) {
            r.renewalChurn = try renewalChurn(members[i].1, at: "\(place).renewal_churn")
            members.remove(at: i)
        }
        if let i = members.firstIndex(where: { $0.0 == "by" }) {
            by = try segmentRates(members[i].1, at: "\(place).by")
            members.remove(at: i)
        }
        let allowed = Array(Rates.keys.keys) + ["renewal_churn", "by"]
        for (key, x) in try numbers(.object(members), allowed: allowed, at: place) {
            r[keyPath: Rates.keys[key]!] = x
            keys.insert(key)
        }
        return (r, keys, by)
    }

    /// `{"ATTRIBUTE": {"VALUE": {rates}}}`: plain rate keys only (no `renewal_churn`, no nested `by`).
    private static func segmentRates(_ value: JSONValue, at place: String) throws(LoadError) -> [SegmentRates] {
        guard case .object(let attributes) = value else { throw LoadError(message: "\(place) must be an object of attribute to value to rates") }
        var out: [SegmentRates] = []
        for (attribute, values) in attributes {
            guard case .object(let byValue) = values else { throw LoadError(message: "\(place).\(attribute) must be an object of value to rates") }
            for (v, rates) in byValue {
                let found = try numbers(rates, allowed: Array(Rates.keys.keys), at: "\(place).\(attribute).\(v)")
                out.append(SegmentRates(attribute: attribute, value: v, rates: found))
            }
        }
        return out
    }

    /// Every `by` names an attribute the population draws and a value it can take, so a typo is an
    /// error rather than rates nobody gets.
    private static func checkSegments(_ truth: Truth, file: String) throws(LoadError) {
        let p = truth.population
        var values: [String: [String]] = ["new_user": ["true", "false"]]
        for (name, d) in p.attributes { values[name] = d.map(\.0) }
        if !p.placement.isEmpty { values["placement"] = p.placement.map(\.0) }
        var all: [(String, SegmentRates)] = truth.defaultBy.map { ("default.by", $0) }
        for (e, variants) in truth.variantBy.sorted(by: { $0.key < $1.key }) {
            for (v, list) in variants.sorted(by: { $0.key < $1.key }) { all += list.map { ("experiments.\(e).\(v).by", $0) } }
        }
        for (place, s) in all {
            guard let known = values[s.attribute] else {
                let hint = Spelling.closest(to: s.attribute, in: Array(values.keys)).map { "; did you mean '\($0)'?" } ?? ""
                throw LoadError(message: "\(file): \(place).\(s.attribute): the population draws no attribute '\(s.attribute)'\(hint)")
            }
            guard known.contains(s.value) else {
                throw LoadError(message: "\(file): \(place).\(s.attribute).\(s.value): the population's \(s.attribute) is never '\(s.value)' (it draws \(known.joined(separator: ", ")))")
            }
        }
    }

    /// `{"alpha": A, "beta": B, "tenure_factor": F}`: A and B positive, F positive (default 1).
    private static func renewalChurn(_ value: JSONValue, at place: String) throws(LoadError) -> RenewalChurn {
        guard case .object(let members) = value else { throw LoadError(message: "\(place) must be an object with alpha and beta") }
        var found: [String: Double] = [:]
        let allowed = ["alpha", "beta", "tenure_factor"]
        for (key, v) in members {
            guard allowed.contains(key) else {
                let hint = Spelling.closest(to: key, in: allowed).map { "; did you mean '\($0)'?" } ?? ""
                throw LoadError(message: "\(place): unknown key '\(key)'\(hint)")
            }
            guard case .number(let x) = v, x > 0, x.isFinite else { throw LoadError(message: "\(place).\(key) must be a positive number") }
            found[key] = x
        }
        guard let alpha = found["alpha"], let beta = found["beta"] else { throw LoadError(message: "\(place) needs alpha and beta") }
        return RenewalChurn(alpha: alpha, beta: beta, tenureFactor: found["tenure_factor"] ?? 1)
    }

    /// An object of probabilities in [0, 1].
    private static func numbers(_ value: JSONValue, allowed: [String], at place: String) throws(LoadError) -> [String: Double] {
        guard case .object(let members) = value else { throw LoadError(message: "\(place) must be an object") }
        var out: [String: Double] = [:]
        for (key, v) in members {
            guard allowed.contains(key) else {
                let hint = Spelling.closest(to: key, in: allowed).map { "; did you mean '\($0)'?" } ?? ""
                throw LoadError(message: "\(place): unknown key '\(key)'\(hint)")
            }
            guard case .number(let x) = v, x >= 0, x <= 1 else { throw LoadError(message: "\(place).\(key) must be a probability in [0, 1]") }
            out[key] = x
        }
        return out
    }

    private static func population(_ value: JSONValue, over base: Population, at place: String) throws(LoadError) -> Population {
        guard case .object(let members) = value else { throw LoadError(message: "\(place) must be an object") }
        var p = base
        func distribution(_ v: JSONValue, _ name: String) throws(LoadError) -> [(String, Double)] {
            guard case .object(let items) = v else { throw LoadError(message: "\(place).\(name) must be an object of value to share") }
            var out: [(String, Double)] = []
            for (k, x) in items {
                guard case .number(let w) = x, w >= 0 else { throw LoadError(message: "\(place).\(name).\(k) must be a non-negative share") }
                out.append((k, w))
            }
            return out
        }
        for (key, v) in members {
            switch key {
            case "new_user":
                guard case .number(let x) = v, x >= 0, x <= 1 else { throw LoadError(message: "\(place).new_user must be a probability") }
                p.newUser = x
            case "signals":
                guard case .object(let signals) = v else { throw LoadError(message: "\(place).signals must be an object") }
                var out: [(String, [(String, Double)])] = []
                for (name, d) in signals { out.append((name, try distribution(d, "signals.\(name)"))) }
                p.signals = out
            case "platform", "country", "language", "app_version":
                let d = try distribution(v, key)
                p.attributes.removeAll { $0.0 == key }
                p.attributes.append((key, d))
            case "placement": p.placement = try distribution(v, key)
            case "login":
                guard case .number(let x) = v, x >= 0, x <= 1 else { throw LoadError(message: "\(place).login must be a probability (the share of users who log in after their exposure)") }
                p.login = x
            case "purchase_under":
                guard case .string(let name) = v, let under = Population.PurchaseUnder(rawValue: name) else {
                    throw LoadError(message: "\(place).purchase_under must be \"known\" or \"anonymous\"")
                }
                p.purchaseUnder = under
            case "attributes":
                guard case .object(let custom) = v else { throw LoadError(message: "\(place).attributes must be an object of attribute to value to share") }
                for (name, d) in custom {
                    guard !["platform", "country", "language", "app_version", "new_user", "placement"].contains(name) else {
                        throw LoadError(message: "\(place).attributes.\(name): give \(name) at \(place).\(name)")
                    }
                    let parsed = try distribution(d, "attributes.\(name)")
                    p.attributes.removeAll { $0.0 == name }
                    p.attributes.append((name, parsed))
                }
            default:
                let known = ["platform", "country", "language", "app_version", "new_user", "placement", "attributes", "signals", "login", "purchase_under"]
                let hint = Spelling.closest(to: key, in: known).map { "; did you mean '\($0)'?" } ?? ""
                throw LoadError(message: "\(place): unknown key '\(key)'\(hint) (other attributes go under 'attributes')")
            }
        }
        return p
    }
}
