import AbctlClient
import Foundation
import TestSupport
import Testing

/// A model that answers from a script, one step per call, and counts its calls.
actor ScriptedModel: CopyModel {
    enum Step: Sendable {
        case line(String)
        case fail
        /// Waits this long whatever cancellation says, then answers: a model that ignores the deadline.
        case stall(Duration, String)
    }

    struct Failure: Error, CustomStringConvertible { var description: String { "the model failed on purpose" } }

    private var steps: [Step]
    private let otherwise: Step
    private(set) var calls: [(instructions: String, prompt: String, options: CopyModelOptions)] = []

    init(_ steps: [Step], otherwise: Step? = nil) {
        self.steps = steps
        self.otherwise = otherwise ?? steps.last ?? .fail
    }

    func line(instructions: String, prompt: String, options: CopyModelOptions) async throws -> String {
        calls.append((instructions, prompt, options))
        let step = steps.isEmpty ? otherwise : steps.removeFirst()
        switch step {
        case .line(let text): return text
        case .fail: throw Failure()
        case .stall(let duration, let text):
            let end = ContinuousClock.now + duration
            while ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
            return text
        }
    }
}

/// The ai arm's recipe from a live server, written into a line by scripted models.
@Suite(.timeLimit(.minutes(10))) struct OnDeviceCopyTests {
    typealias F = ClientFixtures
    static let good = "Your dog sets the pace and Chorus names every song you pass."
    static let fallback = "Picture your next walk with every song named. Chorus can help you get there."

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [ScriptedModel.Step]?
        var source: CopySource
        var text: String
        var reason: FallbackReason?
        var calls: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no model", steps: nil, source: .fallback, text: fallback, reason: .noModel, calls: 0),
        Case(name: "accepted at once", steps: [.line("  \u{201C}\(good)\u{201D} ")], source: .onDevice, text: good, reason: nil, calls: 1),
        Case(name: "rejected, then accepted", steps: [.line("Chorus is free!"), .line(good)], source: .onDevice, text: good, reason: nil, calls: 2),
        Case(name: "rejected twice", steps: [.line("Chorus is free!"), .line("No Chorus here? Chorus!")], source: .fallback, text: fallback,
             reason: .guardRejected, calls: 2),
        Case(name: "the user's name", steps: [.line("Robin, Chorus names every song.")], source: .fallback, text: fallback,
             reason: .guardRejected, calls: 2),
        Case(name: "empty answer", steps: [.line(" \"\" ")], source: .fallback, text: fallback, reason: .emptyAnswer, calls: 1),
        Case(name: "error", steps: [.fail], source: .fallback, text: fallback, reason: .error, calls: 1),
        // Far past the 400 ms deadline, so the order holds however busy the machine is.
        Case(name: "timeout", steps: [.stall(.seconds(30), good)], source: .fallback, text: fallback, reason: .timeout, calls: 1),
    ]

    @Test func eachFailureShipsTheFallbackWithItsReason() async throws {
        let server = try await ServeProcess.start()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let query = F.query(F.aiUser, signals: ["companion": .string("dog")], userName: "Robin")
        var expectedFallbacks: [FallbackReason: Int] = [:]
        var generated = 0
        for c in Self.cases {
            let model = c.steps.map { ScriptedModel($0) }
            let client = try AbctlClient(configuration: F.configuration(server.url, storage: storage, model: model,
                                                                       copyDeadline: c.reason == .timeout ? .milliseconds(400) : .seconds(600)))
            let answer = await client.paywall(for: query)
            #expect(answer.source == .server, "\(c.name)")
            #expect(answer.variant == "ai", "\(c.name)")
            #expect(answer.copy.source == c.source, "\(c.name)")
            #expect(answer.copy.text == c.text, "\(c.name)")
            #expect(answer.copy.fallbackReason == c.reason, "\(c.name)")
            if let model {
                let calls = await model.calls
                #expect(calls.count == c.calls, "\(c.name)")
                #expect(calls.first?.prompt == "Notes about the walker: They walk with their dog.\nUse only these notes. Write the line.")
                #expect(calls.first?.options == CopyModelOptions(temperature: 0.85, maxTokens: 110))
            }
            let d = await client.diagnostics()
            #expect(d.copyFallbacks == (c.reason.map { [$0: 1] } ?? [:]), "\(c.name)")
            #expect(d.copyGenerated == (c.source == .onDevice ? 1 : 0), "\(c.name)")
            if let reason = c.reason { expectedFallbacks[reason, default: 0] += 1 } else { generated += 1 }

            // The exposure carries what was shown and why it fell back.
            let exposure = try #require(ClientEvent.exposure(of: answer))
            #expect(exposure.copySource == c.source)
            #expect(exposure.copyText == c.text)
            #expect(exposure.copyFallbackReason == c.reason)
        }
        #expect(Set(expectedFallbacks.keys) == [.noModel, .guardRejected, .emptyAnswer, .error, .timeout])
        #expect(generated == 2)
    }

    @Test func withoutAModelTheServerWritesTheLineWhenItCan() async throws {
        let chat = try FakeChatServer([], otherwise: .line(Self.good))
        let server = try await ServeProcess.start(arguments: ["--llm-url", chat.url, "--llm-model", "fake", "--llm-deadline-ms", "5000"])
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let query = F.query(F.aiUser, signals: ["companion": .string("dog")])

        let noModel = try AbctlClient(configuration: F.configuration(server.url, storage: storage))
        let written = await noModel.paywall(for: query)
        #expect(written.copy == ShownCopy(text: Self.good, source: .server))
        #expect(ClientEvent.exposure(of: written)?.copySource == .server)

        // With a model the device writes it: the server hands over the recipe and asks no model.
        let requests = chat.requests.count
        let model = ScriptedModel([.line("Chorus names every bird your dog flushes.")])
        let withModel = try AbctlClient(configuration: F.configuration(server.url, storage: storage, model: model))
        #expect(await withModel.paywall(for: query).copy == ShownCopy(text: "Chorus names every bird your dog flushes.", source: .onDevice))
        #expect(chat.requests.count == requests)
    }

    @Test func aCachedRecipeIsWrittenOnTheDeviceOffline() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let query = F.query(F.aiUser, signals: ["companion": .string("dog")])
        do {
            let server = try await ServeProcess.start()
            let online = try AbctlClient(configuration: F.configuration(server.url, storage: storage))
            #expect(await online.paywall(for: query).copy.fallbackReason == .noModel)
        }
        let model = ScriptedModel([.line(Self.good)])
        let offline = try AbctlClient(configuration: F.configuration(try unreachableURL(), storage: storage, model: model))
        let answer = await offline.paywall(for: query)
        #expect(answer.source == .cache)
        #expect(answer.copy == ShownCopy(text: Self.good, source: .onDevice))
    }
}
