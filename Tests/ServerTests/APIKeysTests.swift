import Testing
@testable import Server

@Suite struct APIKeysTests {
    @Test func parsesTheEnvironmentFormat() throws {
        let keys = try APIKeys.parse(environment: "k-assign:assign; k-both:assign,ingest ;k-admin:admin")
        #expect(keys.count == 3)
        #expect(keys.scopes(authorization: "Bearer k-assign") == [.assign])
        #expect(keys.scopes(authorization: "Bearer k-both") == [.assign, .ingest])
        #expect(keys.scopes(authorization: "bearer k-admin") == [.admin])
        #expect(keys.scopes(authorization: "Bearer k-assig") == nil)
        #expect(keys.scopes(authorization: "Bearer k-assign2") == nil)
        #expect(keys.scopes(authorization: "k-assign") == nil)
        #expect(keys.scopes(authorization: "Basic k-assign") == nil)
        #expect(keys.scopes(authorization: nil) == nil)
        #expect(keys.scopes(authorization: "Bearer ") == nil)
    }

    @Test func parsesTheFileFormat() throws {
        let keys = try APIKeys.parse(file: "# comment\n\nkey-one assign,ingest\n  key-two\tadmin  \n", name: "keys.txt")
        #expect(keys.scopes(authorization: "Bearer key-one") == [.assign, .ingest])
        #expect(keys.scopes(authorization: "Bearer key-two") == [.admin])
    }

    @Test(arguments: ["k:reader", "k", ":assign", "k:", "a:assign;a:ingest"])
    func rejectsBadEnvironmentEntries(text: String) {
        #expect(throws: APIKeys.ConfigurationError.self) { try APIKeys.parse(environment: text) }
    }

    @Test func theReportScopeAndNamesInTheEnvironmentFormat() throws {
        let keys = try APIKeys.parse(environment: "k-report:report:ana-pm;k-both:report,assign;k:colon:admin:ops-lead;k-plain:admin")
        #expect(keys.scopes(authorization: "Bearer k-report") == [.report])
        #expect(keys.scopes(authorization: "Bearer k-both") == [.report, .assign])
        // A key may hold ':'; the last field is a name only when it is not a list of scopes.
        #expect(keys.scopes(authorization: "Bearer k:colon") == [.admin])
        #expect(keys.holder(key: "k-report")?.name == "ana-pm")
        #expect(keys.holder(key: "k:colon")?.name == "ops-lead")
        // Without a name, the first 8 hex digits of the key's SHA-256 (of "k-plain").
        #expect(keys.holder(key: "k-plain")?.name == "8855bec3")
        #expect(keys.holder(key: "k-plai") == nil)
        #expect(keys.holders.map(\.name).count == 4)
    }

    @Test func theReportScopeAndNamesInTheFileFormat() throws {
        let keys = try APIKeys.parse(file: "k-report report ana-pm\nk-admin admin\n", name: "keys.txt")
        #expect(keys.holder(key: "k-report")?.scopes == [.report])
        #expect(keys.holder(key: "k-report")?.name == "ana-pm")
        #expect(keys.holder(key: "k-admin")?.name.count == 8)
        #expect(throws: APIKeys.ConfigurationError.self) { try APIKeys.parse(file: "k report ana pm\n", name: "keys.txt") }
    }

    @Test func fileErrorsNameTheLine() {
        do {
            _ = try APIKeys.parse(file: "good assign\nbad\n", name: "keys.txt")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("keys.txt:2:"))
        }
    }

    @Test func constantTimeEqualsComparesWholeValues() {
        let eq = APIKeys.constantTimeEquals
        #expect(eq(Array("abc".utf8), Array("abc".utf8)))
        #expect(!eq(Array("abc".utf8), Array("abd".utf8)))
        #expect(!eq(Array("abc".utf8), Array("abcabc".utf8)))
        #expect(!eq(Array("abc".utf8), []))
        #expect(eq([], []))
    }
}
