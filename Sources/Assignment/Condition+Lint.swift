import ExperimentDefinitions
import Foundation

extension Condition {
    /// Problems that make part of a condition never match, for `abctl validate` to report:
    /// unknown operators, regular expressions that do not compile, and operands of the wrong
    /// type. Each message names the condition path (e.g. `condition.$or[1].age.$gt`).
    /// An empty list means every operator is understood.
    public static func problems(in json: JSONValue, path: String = "condition") -> [String] {
        guard case .object(let pairs) = json else { return ["\(path): a condition must be an object"] }
        var out: [String] = []
        for (key, value) in pairs {
            let here = "\(path).\(key)"
            switch key {
            case "$and", "$or", "$nor":
                guard case .array(let items) = value else { out.append("\(here): expects a list of conditions"); continue }
                for (i, item) in items.enumerated() { out += problems(in: item, path: "\(here)[\(i)]") }
            case "$not":
                out += problems(in: value, path: here)
            default:
                // Any other key, `$groups` included, is an attribute path.
                out += valueProblems(value, path: here)
            }
        }
        return out
    }

    static let typeNames: Set<String> = ["string", "number", "boolean", "array", "object", "null"]

    static func valueProblems(_ value: JSONValue, path: String) -> [String] {
        guard case .object(let pairs) = value, Compiler.isOperatorObject(pairs) else { return [] }
        var out: [String] = []
        for (op, operand) in pairs {
            let here = "\(path).\(op)"
            switch op {
            case "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$exists",
                 "$veq", "$vne", "$vlt", "$vlte", "$vgt", "$vgte":
                break
            case "$in", "$nin", "$ini", "$nini", "$all", "$alli":
                if case .array = operand {} else { out.append("\(here): expects a list") }
            case "$inGroup", "$notInGroup":
                if case .string = operand {} else { out.append("\(here): expects a saved group id") }
            case "$regex", "$regexi":
                guard case .string(let pattern) = operand else { out.append("\(here): expects a pattern string"); continue }
                if CompiledRegex(pattern, caseInsensitive: false).regex == nil { out.append("\(here): the regular expression '\(pattern)' does not compile") }
            case "$type":
                guard case .string(let t) = operand, typeNames.contains(t) else {
                    out.append("\(here): expects one of \(typeNames.sorted().joined(separator: ", "))"); continue
                }
            case "$not", "$size":
                out += valueProblems(operand, path: here)
            case "$elemMatch":
                if case .object(let inner) = operand, Compiler.isOperatorObject(inner) {
                    out += valueProblems(operand, path: here)
                } else {
                    out += problems(in: operand, path: here)
                }
            default:
                out.append("\(here): unknown operator '\(op)'")
            }
        }
        return out
    }
}
