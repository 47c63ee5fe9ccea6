import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `abctl serve` and `abctl assign` agree; the endpoints themselves are checked in process in
/// ServerTests/InProcess/APIDataTests.
@Suite(.timeLimit(.minutes(2)))
struct ServeDataTests {
    static let ios = #""attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}"#

    func assign(_ server: ServeProcess, _ user: String, extra: String = "") async throws -> [[String: Any]] {
        let reply = try await server.request("POST", "/v1/assign", body: #"{"user_id":"\#(user)",\#(Self.ios)\#(extra)}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json?["user_id"] as? String == user)
        return reply.json?["assignments"] as? [[String: Any]] ?? []
    }

    @Test func assignAgreesWithTheCLI() async throws {
        let server = try await ServeProcess.start()
        let users = (0..<40).map { "cross-\($0)" }
        let cli = try await Abctl.run(["assign", "--experiments", server.experimentsPath, "--users", "-",
                                     "--attr", "platform=ios", "--attr", "country=US", "--attr", "app_version=2.3.0", "--attr", "new_user=true"],
                                    stdin: users.joined(separator: "\n") + "\n")
        #expect(cli.status == 0, "\(cli.stderr)")
        let lines = cli.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == users.count * 4)   // the shipped experiments but the global holdout
        for user in users {
            for a in try await assign(server, user) {
                let match = lines.first { $0["user_id"] as? String == user && $0["experiment"] as? String == a["experiment"] as? String }
                #expect(match?["variant"] as? String == a["variant"] as? String, "\(user) \(a)")
                #expect(match?["bucket"] as? Double == a["bucket"] as? Double)
            }
        }
    }

}
