import ExperimentDefinitions

/// One route of the API: the one description of it. The router matches on `method` and
/// `pattern`, the access middleware reads `access`, `/openapi.json` is written from `document`,
/// and `make` builds the handler from the dependencies it names.
public struct RouteSpec: Sendable {
    public let method: String
    /// The pattern, e.g. `/v1/experiments/{id}/report`; also the metrics label.
    public let pattern: String
    public let access: RouteAccess
    public let document: RouteDocument
    let make: @Sendable (HandlerDependencies) -> any Responder

    init(_ method: String, _ pattern: String, access: RouteAccess, document: RouteDocument,
         make: @escaping @Sendable (HandlerDependencies) -> any Responder) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.document = document
        self.make = make
    }

    /// The names of the pattern's `{name}` segments, in order.
    public var captureNames: [String] {
        pattern.split(separator: "/").filter { $0.first == "{" && $0.last == "}" }.map { String($0.dropFirst().dropLast()) }
    }
}

/// What the OpenAPI document says of a route's operation.
public struct RouteDocument: Sendable {
    public var operationID: String
    public var summary: String
    public var description: String?
    /// Path, query and header parameters; a query parameter not listed here is refused.
    public var parameters: [RouteParameter]
    public var body: RequestBody?
    /// Answers beside the ones the route's shape implies (see `OpenAPIDocument`).
    public var answers: [Answer]

    public init(_ operationID: String, summary: String, description: String? = nil, parameters: [RouteParameter] = [],
                body: RequestBody? = nil, answers: [Answer]) {
        self.operationID = operationID
        self.summary = summary
        self.description = description
        self.parameters = parameters
        self.body = body
        self.answers = answers
    }

    public struct RequestBody: Sendable {
        /// Media type and its JSON Schema (JSON text), with an optional example (JSON text).
        public var content: [(mediaType: String, schema: String, example: String?)]

        public init(_ content: [(mediaType: String, schema: String, example: String?)]) { self.content = content }

        /// `application/json` with a schema of the components.
        public static func json(_ schema: String, example: String? = nil) -> RequestBody {
            RequestBody([("application/json", OpenAPIDocument.ref(schema), example)])
        }
    }

    public struct Answer: Sendable {
        public var status: Int
        public var description: String
        /// A shared answer of the components (`BadRequest`, `NotFound`, …), or nil.
        public var shared: String?
        public var mediaType: String
        /// JSON Schema text; nil for an answer with no body.
        public var schema: String?

        /// An answer described here.
        public static func answer(_ status: Int, _ description: String, schema: String? = nil, mediaType: String = "application/json") -> Answer {
            Answer(status: status, description: description, shared: nil, mediaType: mediaType, schema: schema)
        }

        /// An answer of the components' `responses`.
        public static func shared(_ status: Int, _ name: String) -> Answer {
            Answer(status: status, description: "", shared: name, mediaType: "", schema: nil)
        }
    }
}

/// One parameter of a route, as the document shows it and as the handler reads it.
public struct RouteParameter: Sendable {
    public enum Location: String, Sendable { case path, query, header }

    public var name: String
    public var location: Location
    public var required: Bool
    public var description: String
    /// JSON Schema text.
    public var schema: String

    public init(_ name: String, in location: Location, required: Bool = false, schema: String = #"{"type":"string"}"#, _ description: String) {
        self.name = name
        self.location = location
        self.required = required || location == .path
        self.schema = schema
        self.description = description
    }
}
