@testable import AbctlClient
import Foundation
import TestSupport
import Testing

/// The shared corpus (Fixtures/guard-corpus.json): for every line, the client's guard, run on the
/// recipe the server handed over, and `POST /v1/copy/check` give the same verdict.
@Suite(.timeLimit(.minutes(10))) struct GuardCorpusTests {
    typealias F = ClientFixtures

    struct Line: Sendable {
        var text: String
        var userName: String?
    }

    static func corpus() throws -> [Line] {
        let url = try #require(Bundle.module.url(forResource: "guard-corpus", withExtension: "json", subdirectory: "Fixtures"))
        let root = try JSONValue.parse([UInt8](Data(contentsOf: url)))
        return (root["lines"]?.array ?? []).map { Line(text: $0["text"]?.string ?? "", userName: $0["user_name"]?.string) }
    }

    @Test func clientAndServerAgreeOnEveryLine() async throws {
        let lines = try Self.corpus()
        #expect(lines.count >= 40)
        let server = try await ServeProcess.start()
        let connection = ServerConnection(baseURL: server.url, apiKey: nil)
        var accepted = 0
        for line in lines {
            let storage = try TemporaryDirectory()
            defer { storage.remove() }
            // The line as the device's model would answer it, every time it is asked.
            let model = ScriptedModel([.line(line.text)])
            let client = try AbctlClient(configuration: F.configuration(server.url, storage: storage, model: model))
            let answer = await client.paywall(for: F.query(F.aiUser, signals: ["companion": .string("dog")], userName: line.userName))
            guard case .recipe(let recipe) = answer.paywall.copy else {
                Issue.record("the ai arm answered no recipe")
                return
            }

            var body: [(String, JSONValue)] = [("experiment", .string(F.experiment)), ("variant", .string("ai")), ("text", .string(line.text))]
            if let name = line.userName { body.append(("user_name", .string(name))) }
            let (status, reply) = try await connection.post("v1/copy/check", body: Array(JSONValue.object(body).serialized().utf8),
                                                            contentType: "application/json", deadline: .seconds(10))
            #expect(status == 200)
            let verdict = try JSONValue.parse(reply)
            let serverAccepted = try #require(verdict["accepted"]?.bool as Bool?)
            let serverRules = (verdict["violations"]?.array ?? []).compactMap { $0["rule"]?.string }

            let clientVerdict = recipe.guardRules.check(line.text, userName: line.userName)
            #expect(clientVerdict.violations.map { $0.rule } == serverRules, "\(line.text.debugDescription)")
            #expect(clientVerdict.text == verdict["text"]?.string, "\(line.text.debugDescription)")
            // The line the client ships: the model's when the guard takes it, else the fallback.
            #expect((answer.copy.source == .onDevice) == serverAccepted, "\(line.text.debugDescription)")
            if serverAccepted {
                accepted += 1
                #expect(answer.copy.text == verdict["text"]?.string)
            }
        }
        // The corpus holds both kinds of line.
        #expect(accepted >= 8)
        #expect(lines.count - accepted >= 20)
    }
}
