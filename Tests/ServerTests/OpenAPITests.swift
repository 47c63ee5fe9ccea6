import Assignment
import ExperimentDefinitions
import HTTPTransport
import Reporting
import Testing
@testable import Server

/// `/openapi.json` is written from the route table: the two must describe the same routes, the
/// same parameters and the same access, and the document must be what the server serves.
@Suite struct OpenAPITests {
    let document = OpenAPIDocument.json

    func member(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard case .object(let members)? = value else { return nil }
        return members.first { $0.0 == key }?.1
    }

    func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.map(\.0)
    }

    /// The `Event` schema has each key of the declaration (`EventField`), and each key's `type` names
    /// JSON Schema types: a name, or a list of names ("null" among them for a key that may be null).
    @Test func theEventSchemaHasEveryKeyWithJSONSchemaTypes() {
        let properties = member(member(member(member(document, "components"), "schemas"), "Event"), "properties")
        #expect(keys(properties) == EventField.allCases.map(\.key))
        let names: Set<String> = ["string", "number", "integer", "boolean", "object", "array", "null"]
        for key in keys(properties) {
            switch member(member(properties, key), "type") {
            case .string(let name)?: #expect(names.contains(name), "\(key)")
            case .array(let list)?:
                #expect(list.allSatisfy { if case .string(let name) = $0 { names.contains(name) } else { false } }, "\(key): \(list)")
            default: Issue.record("\(key) has no type")
            }
        }
    }

    /// The keys a type requires (an exposure's experiment and variant, an identified's identity, an
    /// expiry's reason, a plan change's product) are one `if`/`then` rule per type, from the declaration.
    @Test func theEventSchemaRequiresEachTypesKeys() {
        let event = member(member(member(document, "components"), "schemas"), "Event")
        guard case .array(let rules)? = member(event, "allOf") else { Issue.record("no allOf"); return }
        var required: [String: [String]] = [:]
        for rule in rules {
            guard case .string(let type)? = member(member(member(member(rule, "if"), "properties"), "type"), "const"),
                  case .array(let keys)? = member(member(rule, "then"), "required") else { Issue.record("\(rule)"); continue }
            required[type] = keys.compactMap { if case .string(let key) = $0 { key } else { nil } }
        }
        #expect(required == ["exposure": ["experiment", "variant"], "identified": ["identity"], "expired": ["reason"], "plan_changed": ["product_id"]])
    }

    @Test func theDocumentAndTheRouteTableDescribeTheSameRoutes() {
        let paths = member(document, "paths")
        var described: [String] = []
        for path in keys(paths) {
            for method in keys(member(paths, path)) { described.append("\(method.uppercased()) \(path)") }
        }
        let routed = APIServer.routes.map { "\($0.method) \($0.pattern)" }
        #expect(described.sorted() == routed.sorted())
        #expect(Set(routed).count == routed.count, "a route is declared twice")
    }

    @Test func everyRouteDescribesItsPathCapturesAndQueryParameters() throws {
        let paths = member(document, "paths")
        for route in APIServer.routes {
            let operation = member(member(paths, route.pattern), route.method.lowercased())
            guard case .array(let parameters)? = member(operation, "parameters") else {
                #expect(route.captureNames.isEmpty, "\(route.pattern) has captures but no parameters")
                continue
            }
            let pathParameters = parameters.filter { member($0, "in") == .string("path") }.compactMap { p -> String? in
                if case .string(let name)? = member(p, "name") { name } else { nil }
            }
            #expect(pathParameters == route.captureNames, "\(route.pattern)")
        }
        // The report's query parameters are exactly the ones its one check takes.
        let report = member(member(paths, "/v1/experiments/{id}/report"), "get")
        guard case .array(let parameters)? = member(report, "parameters") else { Issue.record("no parameters"); return }
        let query = parameters.filter { member($0, "in") == .string("query") }.compactMap { p -> String? in
            if case .string(let name)? = member(p, "name") { name } else { nil }
        }
        #expect(query == ReportParameters.all.map(\.name))
        #expect(query == ["since", "until", "alpha", "by", "min_segment_users"])
    }

    @Test func accessIsDescribedAsTheMiddlewareEnforcesIt() {
        let paths = member(document, "paths")
        for route in APIServer.routes {
            let operation = member(member(paths, route.pattern), route.method.lowercased())
            let responses = keys(member(operation, "responses"))
            switch route.access {
            case .open:
                #expect(member(operation, "security") == .array([]), "\(route.pattern)")
                #expect(!responses.contains("401"), "\(route.pattern)")
            case .scoped:
                #expect(member(operation, "security") == nil, "\(route.pattern) uses the document's bearer key")
                #expect(responses.contains("401") && responses.contains("403"), "\(route.pattern)")
            case .vendor:
                #expect(member(operation, "security") != nil && responses.contains("401"), "\(route.pattern)")
            }
            if route.method == "POST" {
                #expect(["400", "408", "413"].allSatisfy(responses.contains), "\(route.pattern)")
            }
        }
    }

    @Test func everyReferenceResolves() {
        let schemas = Set(keys(member(member(document, "components"), "schemas")))
        let responses = Set(keys(member(member(document, "components"), "responses")))
        var unresolved: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                for (key, child) in members {
                    if key == "$ref", case .string(let ref) = child {
                        // `#/components/schemas/NAME`, or a pointer into it.
                        let parts = ref.split(separator: "/")
                        let name = parts.count > 3 ? String(parts[3]) : ""
                        let known = ref.hasPrefix("#/components/schemas/") ? schemas.contains(name) : responses.contains(name)
                        if !known { unresolved.append(ref) }
                    }
                    walk(child)
                }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(document)
        #expect(unresolved.isEmpty, "\(unresolved)")
    }

    /// The enums a client switches on are the ones the server answers with, not a copy of them.
    @Test func theAssignmentReasonsAreTheAssignersOwn() {
        let assignment = member(member(member(document, "components"), "schemas"), "Assignment")
        let reasons = member(member(member(assignment, "properties"), "reason"), "enum")
        #expect(reasons == .array(Assignment.Reason.allCases.map { .string($0.rawValue) }))
    }

    @Test func theServerAnswersWithTheDocumentItIsWrittenFrom() throws {
        let served = try JSONReader.parse(OpenAPIDocument.bytes).value
        #expect(served == document)
    }
}
