import Foundation
import Server
import Testing

/// API keys and their scopes in process (moved from EndToEndTests/ServeLifecycleTests,
/// which keeps `--keys-file`, the loopback rule, SIGHUP and SIGTERM).
@Suite(.timeLimit(.minutes(2)))
struct APIKeyScopeTests {
    static let keys = "assign-key-123:assign;ingest-key-456:ingest;admin-key-789:admin"

    @Test func apiKeysAndScopes() async throws {
        let server = try InProcessServer { $0.keys = try APIKeys.parse(environment: Self.keys) }
        let copy = #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Chorus"}"#
        let none = await server.request("POST", "/v1/copy/check", body: copy)
        #expect(none.status == 401)
        #expect(none.errorCode == "unauthorized")
        #expect(none.headers["www-authenticate"] == "Bearer")
        let wrong = await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer assign-key-124"], body: copy)
        #expect(wrong.status == 401)
        let basic = await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Basic assign-key-123"], body: copy)
        #expect(basic.status == 401)
        #expect(await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer assign-key-123"], body: copy).status == 200)
        #expect(await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer admin-key-789"], body: copy).status == 200)
        let scope = await server.request("POST", "/v1/copy/check", headers: ["Authorization": "Bearer ingest-key-456"], body: copy)
        #expect(scope.status == 403)
        #expect(scope.errorCode == "insufficient_scope")
        // Definitions need admin.
        #expect(await server.request("GET", "/v1/experiments", headers: ["Authorization": "Bearer assign-key-123"]).status == 403)
        #expect(await server.request("GET", "/v1/experiments", headers: ["Authorization": "Bearer admin-key-789"]).status == 200)
        // Health, metrics and the document stay open.
        #expect(await server.request("GET", "/healthz").status == 200)
        #expect(await server.request("GET", "/metrics").status == 200)
        #expect(await server.request("GET", "/openapi.json").status == 200)
    }
}
