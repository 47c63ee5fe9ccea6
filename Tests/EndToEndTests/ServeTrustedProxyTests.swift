import Foundation
import TestSupport
import Testing

/// `abctl serve --trusted-proxy` through the real transport: every `X-Forwarded-For` line reaches
/// the console, and the rightmost address that is not the proxy is the one counted.
@Suite(.timeLimit(.minutes(2)))
struct ServeTrustedProxyTests {
    @Test func aProxyNamedByAnythingButAnAddressIsRefused() async throws {
        let folder = TemporaryFolder()
        let refused = try await Abctl.run(["serve", "--port", "0", "--trusted-proxy", "proxy.internal", "--db", folder.path + "/never.sqlite"],
                                          environment: ["ABCTL_API_KEYS": ServeConsoleTests.keys])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--trusted-proxy must be an IPv4 or IPv6 address, got 'proxy.internal'"), "\(refused.stderr)")
    }

    @Test func failedSignInsAreCountedUnderTheRightmostForwardedLine() async throws {
        let server = try await ServeProcess.start(arguments: ["--console-insecure-cookie", "--trusted-proxy", "127.0.0.1"],
                                                  environment: ["ABCTL_API_KEYS": ServeConsoleTests.keys])
        let form = try await server.request("GET", "/login")
        let cookie = String(try #require(form.headers["set-cookie"]).split(separator: ";")[0])
        let html = String(decoding: form.body, as: UTF8.self)
        let tokenStart = try #require(html.range(of: #"name="form_token" value=""#))
        let token = String(html[tokenStart.upperBound...].prefix { $0 != "\"" })
        /// A sign-in whose `X-Forwarded-For` comes on two lines, as a proxy that adds its own line sends it.
        func signIn(key: String, lines: [String]) async throws -> Int {
            let port = server.port
            return try await onOwnThread {
                let body = "form_token=\(token)&key=\(key)"
                var head = "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\nOrigin: http://127.0.0.1\r\n"
                head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
                for line in lines { head += "X-Forwarded-For: \(line)\r\n" }
                let connection = try HTTPConnection(port: port)
                try connection.send(head + "\r\n" + body)
                return try connection.readReply().status
            }
        }
        for _ in 1...10 { #expect(try await signIn(key: "wrong", lines: ["203.0.113.5", "198.51.100.9"]) == 401) }
        #expect(try await signIn(key: "report-key-0123456789abcdef", lines: ["203.0.113.77", "198.51.100.9"]) == 429)
        // The address on the first line, which a client writes, was not counted.
        #expect(try await signIn(key: "report-key-0123456789abcdef", lines: ["198.51.100.9", "203.0.113.5"]) == 303)
        #expect(await eventually { server.logLines.contains { $0["msg"] as? String == "console sign-in throttled" && $0["address"] as? String == "198.51.100.9" } })
    }
}
