import Foundation
import TestSupport
import Testing

/// `abctl serve`'s console settings and the console through the real transport (the headers it
/// copies, the peer's address); the pages themselves are checked in process in
/// ServerTests/Console.
@Suite(.timeLimit(.minutes(2)))
struct ServeConsoleTests {
    static let keys = "report-key-0123456789abcdef:report:ana-pm"

    @Test func theConsoleSettingsAreCheckedBeforeTheStoreOpens() async throws {
        let folder = TemporaryFolder()
        let insecure = try await Abctl.run(["serve", "--port", "0", "--host", "0.0.0.0", "--console-insecure-cookie", "--db", folder.path + "/never.sqlite"],
                                           environment: ["ABCTL_API_KEYS": Self.keys])
        #expect(insecure.status == 2)
        #expect(insecure.stderr.contains("'--console-insecure-cookie' is refused unless --host is loopback"), "\(insecure.stderr)")
        let short = try await Abctl.run(["serve", "--port", "0", "--db", folder.path + "/never.sqlite"],
                                        environment: ["ABCTL_API_KEYS": Self.keys, "ABCTL_SESSION_SECRET": "short"])
        #expect(short.status == 2)
        #expect(short.stderr.contains("ABCTL_SESSION_SECRET must hold at least 32 bytes"), "\(short.stderr)")
        let hours = try await Abctl.run(["serve", "--port", "0", "--session-hours", "0", "--db", folder.path + "/never.sqlite"])
        #expect(hours.status == 2)
        for bad in ["0", "-5", "soon"] {
            let refresh = try await Abctl.run(["serve", "--port", "0", "--console-refresh-s", bad, "--db", folder.path + "/never.sqlite"])
            #expect(refresh.status == 2)
            #expect(refresh.stderr.contains("--console-refresh-s"), "\(refresh.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/never.sqlite"))
    }

    @Test func withoutKeysTheConsoleAnswersOnLoopback() async throws {
        let server = try await ServeProcess.start()
        let page = try await server.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'none'") == true)
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(String(decoding: page.body, as: UTF8.self).contains("chorus-voice"))
    }

    @Test func failedSignInsFromOneAddressAreThrottledThroughTheDaemon() async throws {
        let server = try await ServeProcess.start(arguments: ["--console-insecure-cookie"], environment: ["ABCTL_API_KEYS": Self.keys])
        let form = try await server.request("GET", "/login")
        #expect(form.status == 200)
        let cookie = try #require(form.headers["set-cookie"])
        #expect(cookie.hasSuffix("; Path=/; HttpOnly; SameSite=Strict"))
        let html = String(decoding: form.body, as: UTF8.self)
        let tokenStart = try #require(html.range(of: #"name="form_token" value=""#))
        let token = String(html[tokenStart.upperBound...].prefix { $0 != "\"" })
        let headers = ["Cookie": String(cookie.split(separator: ";")[0]), "Origin": "http://127.0.0.1",
                       "Content-Type": "application/x-www-form-urlencoded"]
        for _ in 1...10 {
            #expect(try await server.request("POST", "/login", headers: headers, body: "form_token=\(token)&key=wrong").status == 401)
        }
        let throttled = try await server.request("POST", "/login", headers: headers, body: "form_token=\(token)&key=report-key-0123456789abcdef")
        #expect(throttled.status == 429)
        #expect(throttled.headers["retry-after"] == "60")
    }

    @Test func theRequestLogWritesNoShareLinksID() async throws {
        let server = try await ServeProcess.start()
        let id = String(repeating: "ab", count: 20)
        #expect(try await server.request("GET", "/share/" + id).status == 404)
        #expect(try await server.request("POST", "/experiments/chorus-voice/shares/\(id)/revoke", headers: ["Origin": "http://127.0.0.1"]).status == 404)
        #expect(await eventually { server.logLines.contains { $0["msg"] as? String == "request" && $0["path"] as? String == "/share/…" } })
        #expect(await eventually { server.logLines.contains { $0["path"] as? String == "/experiments/chorus-voice/shares/…/revoke" } })
        #expect(!server.stderr.contains(id))
    }
}
