import ExperimentDefinitions
import Foundation

/// A GrowthBook condition (the `condition` of an experiment file), compiled once so that
/// evaluating it parses nothing: paths are split, regular expressions built, version strings
/// padded and saved groups resolved ahead of time.
///
/// Semantics are those of GrowthBook's JavaScript SDK that `conformance/growthbook-cases.json`
/// pins down (spec 0.8.0): a missing attribute reads as `null`; a plain string, number or
/// boolean condition value compares with JS coercion (`value + "" === c`, `value * 1 === c`,
/// `!!value === c`); `$lt`…`$gte` use JS's relational comparison; `$eq`/`$ne`/`$in` use `===`;
/// arrays and objects as condition values compare like `JSON.stringify`.
///
/// Deliberate choices where the cases are silent: `$elemMatch` skips only `null` elements
/// (the JS SDK also skips `0`, `""` and `false`); `$regex` never matches `null` or a missing
/// attribute (JS would test the string "null"). Unknown operators never match.
public struct Condition: Sendable {
    let root: Node

    /// Compiles `json`, which must be an object; `savedGroups` maps a group id to its members
    /// for `$inGroup` / `$notInGroup`.
    public init(_ json: JSONValue, savedGroups: [String: [JSONValue]] = [:]) throws {
        guard case .object(let pairs) = json else { throw ConditionError.notAnObject }
        root = Compiler(savedGroups: savedGroups).document(pairs)
    }

    /// Whether `attributes` satisfy the condition.
    public func matches(_ attributes: Attributes) -> Bool {
        root.eval(.attributes(attributes))
    }

    /// Evaluates against any JSON value as the document (an object, as GrowthBook does).
    public func matches(document: JSONValue) -> Bool {
        root.eval(.value(document))
    }
}

/// Why a condition could not be compiled.
public enum ConditionError: Error, Equatable, CustomStringConvertible {
    case notAnObject
    public var description: String { "a condition must be a JSON object" }
}

// MARK: - Compiled form

/// What a condition is evaluated against: the request's attributes or a nested value.
enum Document {
    case attributes(Attributes)
    case value(JSONValue)

    func lookup(_ path: [String]) -> JSONValue {
        var current: JSONValue
        var rest = path[...]
        switch self {
        case .attributes(let dict):
            guard let first = rest.first, let v = dict[first] else { return .null }
            current = v
            rest = rest.dropFirst()
        case .value(let v):
            current = v
        }
        for key in rest {
            switch current {
            case .object(let pairs):
                // JS objects keep the last of duplicate keys.
                guard let v = pairs.last(where: { $0.0 == key })?.1 else { return .null }
                current = v
            case .array(let items):
                if key == "length" { current = .number(Double(items.count)); continue }
                guard let i = Int(key), i >= 0, i < items.count, String(i) == key else { return .null }
                current = items[i]
            default:
                return .null
            }
        }
        return current
    }
}

/// A condition over a document: `{field: value-condition, $and: [...], ...}`.
indirect enum Node: Sendable {
    case all([Node])
    case and([Node])
    case or([Node])
    case nor([Node])
    case not(Node)
    case field([String], ValueTest)

    func eval(_ doc: Document) -> Bool {
        switch self {
        case .all(let nodes), .and(let nodes):
            for n in nodes where !n.eval(doc) { return false }
            return true
        case .or(let nodes):
            if nodes.isEmpty { return true }
            for n in nodes where n.eval(doc) { return true }
            return false
        case .nor(let nodes):
            if nodes.isEmpty { return false }     // $nor of nothing: "$or passed", so negated
            for n in nodes where n.eval(doc) { return false }
            return true
        case .not(let n):
            return !n.eval(doc)
        case .field(let path, let test):
            return test.eval(doc.lookup(path))
        }
    }
}

/// A condition on one value: a literal to compare with, or a set of `$` operators.
indirect enum ValueTest: Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case json(JSONValue)
    case operators([Operator])

    func eval(_ v: JSONValue) -> Bool {
        switch self {
        case .string(let s): return JS.toString(v) == s
        case .number(let d): return JS.toNumber(v) == d
        case .bool(let b):
            if case .null = v { return false }
            return JS.truthy(v) == b
        case .null:
            if case .null = v { return true }
            return false
        case .json(let j): return JS.sameJSON(v, j)
        case .operators(let ops):
            for op in ops where !op.eval(v) { return false }
            return true
        }
    }

    /// The case-insensitive comparison `$alli` uses for string literals.
    func evalInsensitive(_ v: JSONValue) -> Bool {
        if case .string(let s) = self { return JS.toString(v).lowercased() == s.lowercased() }
        return eval(v)
    }
}

/// One `$` operator with its operand prepared.
enum Operator: Sendable {
    case eq(JSONValue), ne(JSONValue)
    case lt(JSONValue), lte(JSONValue), gt(JSONValue), gte(JSONValue)
    case exists(Bool)
    case inList([JSONValue], insensitive: Bool, negated: Bool)
    case never                       // malformed operand or unknown operator
    case not(ValueTest)
    case size(ValueTest)
    case elemMatchValue(ValueTest)   // operator object: tested against each element
    case elemMatchDocument(Node)     // plain condition: each element is a document
    case all([ValueTest], insensitive: Bool)
    case regex(CompiledRegex)
    case type(String)
    case version(VersionOp, String)  // operand already padded

    enum VersionOp: Sendable { case eq, ne, lt, lte, gt, gte }

    func eval(_ v: JSONValue) -> Bool {
        switch self {
        case .eq(let e): return JS.strictEquals(v, e)
        case .ne(let e): return !JS.strictEquals(v, e)
        case .lt(let e): return JS.compare(v, e).map { $0 < 0 } ?? false
        case .lte(let e): return JS.compare(v, e).map { $0 <= 0 } ?? false
        case .gt(let e): return JS.compare(v, e).map { $0 > 0 } ?? false
        case .gte(let e): return JS.compare(v, e).map { $0 >= 0 } ?? false
        case .exists(let want):
            if case .null = v { return !want }
            return want
        case .inList(let list, let insensitive, let negated):
            return isIn(v, list, insensitive: insensitive) != negated
        case .never: return false
        case .not(let t): return !t.eval(v)
        case .size(let t):
            guard case .array(let items) = v else { return false }
            return t.eval(.number(Double(items.count)))
        case .elemMatchValue(let t):
            guard case .array(let items) = v else { return false }
            for item in items {
                if case .null = item { continue }
                if t.eval(item) { return true }
            }
            return false
        case .elemMatchDocument(let node):
            guard case .array(let items) = v else { return false }
            for item in items {
                if case .null = item { continue }
                if node.eval(.value(item)) { return true }
            }
            return false
        case .all(let tests, let insensitive):
            guard case .array(let items) = v else { return false }
            for t in tests {
                let passed = items.contains { insensitive ? t.evalInsensitive($0) : t.eval($0) }
                if !passed { return false }
            }
            return true
        case .regex(let r):
            switch v {
            case .null: return false
            case .string(let s): return r.matches(s)
            default: return r.matches(JS.toString(v))
            }
        case .type(let t): return JS.typeName(v) == t
        case .version(let op, let expected):
            let actual = VersionPadding.padded(v)
            let c = JS.compareUTF16(actual, expected)
            switch op {
            case .eq: return c == 0
            case .ne: return c != 0
            case .lt: return c < 0
            case .lte: return c <= 0
            case .gt: return c > 0
            case .gte: return c >= 0
            }
        }
    }

    /// GrowthBook's `isIn`: for an array attribute, any element in the list.
    func isIn(_ v: JSONValue, _ list: [JSONValue], insensitive: Bool) -> Bool {
        func fold(_ x: JSONValue) -> JSONValue {
            if insensitive, case .string(let s) = x { return .string(s.lowercased()) }
            return x
        }
        if case .array(let items) = v {
            return items.contains { item in let f = fold(item); return list.contains { JS.strictEquals(f, $0) } }
        }
        let f = fold(v)
        return list.contains { JS.strictEquals(f, $0) }
    }
}

/// A regular expression compiled once; `nil` pattern when it failed to compile (never matches).
/// `NSRegularExpression` is immutable after creation and documented as safe to share between
/// threads, hence `@unchecked Sendable`.
final class CompiledRegex: @unchecked Sendable {
    let regex: NSRegularExpression?

    init(_ pattern: String, caseInsensitive: Bool) {
        regex = try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
    }

    func matches(_ s: String) -> Bool {
        guard let regex else { return false }
        let range = NSRange(location: 0, length: s.utf16.count)
        return regex.firstMatch(in: s, options: [], range: range) != nil
    }
}

// MARK: - Compiler

struct Compiler {
    var savedGroups: [String: [JSONValue]]

    /// A condition object: every key is a field path or one of `$and $or $nor $not`.
    func document(_ pairs: [(String, JSONValue)]) -> Node {
        var nodes: [Node] = []
        for (key, value) in pairs {
            switch key {
            case "$and": nodes.append(.and(list(value)))
            case "$or": nodes.append(.or(list(value)))
            case "$nor": nodes.append(.nor(list(value)))
            case "$not": nodes.append(.not(node(value)))
            default: nodes.append(.field(key.split(separator: ".", omittingEmptySubsequences: false).map(String.init), valueTest(value)))
            }
        }
        return nodes.count == 1 ? nodes[0] : .all(nodes)
    }

    func node(_ v: JSONValue) -> Node {
        if case .object(let pairs) = v { return document(pairs) }
        return .all([])     // a non-object condition has no keys: it passes
    }

    func list(_ v: JSONValue) -> [Node] {
        guard case .array(let items) = v else { return [] }
        return items.map(node)
    }

    static func isOperatorObject(_ pairs: [(String, JSONValue)]) -> Bool {
        !pairs.isEmpty && pairs.allSatisfy { $0.0.hasPrefix("$") }
    }

    func valueTest(_ v: JSONValue) -> ValueTest {
        switch v {
        case .string(let s): return .string(s)
        case .number(let d): return .number(d)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .array: return .json(v)
        case .object(let pairs):
            guard Self.isOperatorObject(pairs) else { return .json(v) }
            return .operators(pairs.map { op($0.0, $0.1) })
        }
    }

    func op(_ name: String, _ e: JSONValue) -> Operator {
        switch name {
        case "$eq": return .eq(e)
        case "$ne": return .ne(e)
        case "$lt": return .lt(e)
        case "$lte": return .lte(e)
        case "$gt": return .gt(e)
        case "$gte": return .gte(e)
        case "$exists": return .exists(JS.truthy(e))
        case "$in", "$nin", "$ini", "$nini":
            guard case .array(let items) = e else { return .never }
            let insensitive = name.hasSuffix("i")
            let folded = insensitive ? items.map { x -> JSONValue in
                if case .string(let s) = x { return .string(s.lowercased()) }
                return x
            } : items
            return .inList(folded, insensitive: insensitive, negated: name.hasPrefix("$n"))
        case "$inGroup", "$notInGroup":
            guard case .string(let id) = e else { return .never }
            return .inList(savedGroups[id] ?? [], insensitive: false, negated: name == "$notInGroup")
        case "$not": return .not(valueTest(e))
        case "$size": return .size(valueTest(e))
        case "$elemMatch":
            if case .object(let pairs) = e, Self.isOperatorObject(pairs) { return .elemMatchValue(valueTest(e)) }
            return .elemMatchDocument(node(e))
        case "$all", "$alli":
            guard case .array(let items) = e else { return .never }
            return .all(items.map(valueTest), insensitive: name == "$alli")
        case "$regex", "$regexi":
            guard case .string(let pattern) = e else { return .never }
            return .regex(CompiledRegex(pattern, caseInsensitive: name == "$regexi"))
        case "$type":
            guard case .string(let t) = e else { return .never }
            return .type(t)
        case "$veq": return .version(.eq, VersionPadding.padded(e))
        case "$vne": return .version(.ne, VersionPadding.padded(e))
        case "$vlt": return .version(.lt, VersionPadding.padded(e))
        case "$vlte": return .version(.lte, VersionPadding.padded(e))
        case "$vgt": return .version(.gt, VersionPadding.padded(e))
        case "$vgte": return .version(.gte, VersionPadding.padded(e))
        default: return .never
        }
    }
}
