import ExperimentDefinitions

/// `GET /openapi.json`, written from the route table: each route's operation from its
/// `RouteDocument`, and the answers its shape implies (a body: 400, 408, 413; query parameters:
/// 400; a key: 401 and 403; a vendor's credential: 401). The components are `OpenAPIComponents`.
enum OpenAPIDocument {
    static let json: JSONValue = document(APIRoutes.all)
    static let bytes: [UInt8] = JSONWriter.bytes(json, reserving: 64 << 10)

    /// A reference to a schema of the components.
    static func ref(_ schema: String) -> String { ##"{"$ref":"#/components/schemas/\##(schema)"}"## }

    static func document(_ routes: [RouteSpec]) -> JSONValue {
        var paths: [(String, JSONValue)] = []
        for route in routes {
            let operation = (route.method.lowercased(), self.operation(route))
            if let i = paths.firstIndex(where: { $0.0 == route.pattern }), case .object(let operations) = paths[i].1 {
                paths[i].1 = .object(operations + [operation])
            } else {
                paths.append((route.pattern, .object([operation])))
            }
        }
        return .object([
            ("openapi", .string("3.1.0")),
            ("info", parse(OpenAPIComponents.info)),
            ("servers", .array([.object([("url", .string("/"))])])),
            ("security", .array([.object([("bearer", .array([]))])])),
            ("paths", .object(paths)),
            ("components", parse(OpenAPIComponents.components)),
        ])
    }

    static func operation(_ route: RouteSpec) -> JSONValue {
        let doc = route.document
        var members: [(String, JSONValue)] = [("operationId", .string(doc.operationID)), ("summary", .string(doc.summary))]
        if let description = doc.description { members.append(("description", .string(description))) }
        switch route.access {
        case .open: members.append(("security", .array([])))
        case .scoped: break
        case .vendor(let schemes): members.append(("security", .array(schemes.map { .object([($0, .array([]))]) })))
        }
        if !doc.parameters.isEmpty {
            members.append(("parameters", .array(doc.parameters.map { p in
                var fields: [(String, JSONValue)] = [("name", .string(p.name)), ("in", .string(p.location.rawValue))]
                if p.required { fields.append(("required", .bool(true))) }
                if !p.description.isEmpty { fields.append(("description", .string(p.description))) }
                fields.append(("schema", parse(p.schema)))
                return .object(fields)
            })))
        }
        if let body = doc.body {
            members.append(("requestBody", .object([
                ("required", .bool(true)),
                ("content", .object(body.content.map { content in
                    var fields: [(String, JSONValue)] = [("schema", parse(content.schema))]
                    if let example = content.example { fields.append(("example", parse(example))) }
                    return (content.mediaType, .object(fields))
                })),
            ])))
        }
        members.append(("responses", .object(answers(route).map { answer in
            if let shared = answer.shared { return (String(answer.status), .object([("$ref", .string("#/components/responses/\(shared)"))])) }
            var fields: [(String, JSONValue)] = [("description", .string(answer.description))]
            if let schema = answer.schema { fields.append(("content", .object([(answer.mediaType, .object([("schema", parse(schema))]))]))) }
            return (String(answer.status), .object(fields))
        })))
        return .object(members)
    }

    /// The route's own answers, and the ones its shape implies where it names none for that status.
    static func answers(_ route: RouteSpec) -> [RouteDocument.Answer] {
        var implied: [RouteDocument.Answer] = []
        if route.document.body != nil { implied += [.shared(400, "BadRequest"), .shared(408, "Timeout"), .shared(413, "TooLarge")] }
        if route.document.parameters.contains(where: { $0.location == .query }) { implied.append(.shared(400, "BadRequest")) }
        switch route.access {
        case .open: break
        case .scoped: implied += [.shared(401, "Unauthorized"), .shared(403, "Forbidden")]
        case .vendor: implied.append(.shared(401, "Unauthorized"))
        }
        var all = route.document.answers
        for answer in implied where !all.contains(where: { $0.status == answer.status }) { all.append(answer) }
        return all.sorted { $0.status < $1.status }
    }

    /// The document's JSON texts are the project's own and checked by tests: a syntax error is a bug.
    private static func parse(_ text: String) -> JSONValue {
        do { return try JSONReader.parse(text).value } catch { preconditionFailure("OpenAPI JSON text: \(error.message) at \(error.position)\n\(text)") }
    }
}
