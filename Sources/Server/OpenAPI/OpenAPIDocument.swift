/// The OpenAPI 3.1 description of every endpoint, served at `GET /openapi.json`.
enum OpenAPIDocument {
    static let json = #"{"openapi":"3.1.0","info":{"title":"abctl","version":"1"},"paths":{}}"#
}
