import AbctlClient
import ExperimentDefinitions
import Foundation
import TestSupport
import Testing

/// The README's "app in a dozen lines", run against a live server: the lines between the markers
/// below are the README's Swift block, line for line (the second test holds them together).
@Suite struct ReadmeAppTests {
    @Test func theReadmeAppRunsAgainstALiveServer() async throws {
        let server = try await ServeProcess.start()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let serverURL = server.url, storageDirectory = storage.url
        // README begins
        let plans = [ResolvedPlan(key: "monthly", productID: "chorus.plus.monthly", price: 9.99, period: "P1M", currency: "USD", highlighted: false),
                     ResolvedPlan(key: "annual", productID: "chorus.plus.annual", price: 59.99, period: "P1Y", currency: "USD", highlighted: true)]
        let onboarding = ResolvedPaywall(offering: "chorus_plus", trialDays: 3, highlightedPlan: "annual", plans: plans,
                                         copy: .text("Hear every bird on every walk.", source: .static, fallbackReason: nil))
        let abctl = try AbctlClient(configuration: ClientConfiguration(
            serverURL: serverURL, apiKey: "APP_KEY", storageDirectory: storageDirectory, defaultPaywall: onboarding,
            placementDefaults: ["onboarding_end": onboarding], isAppKey: true))
        let shown = await abctl.paywall(for: PlacementQuery(userID: "u1", placement: "onboarding_end",
                                                            attributes: ["platform": .string("ios"), "new_user": .bool(true)]))
        try await abctl.logExposure(shown)
        let appAccountToken = UUID(uuidString: try await abctl.storeAccountID(for: "u1"))   // for StoreKit's purchase
        _ = await abctl.flush()
        // README ends
        #expect(shown.source == .server && shown.showPaywall)
        #expect(shown.copy?.text.isEmpty == false)
        #expect(appAccountToken != nil)
        // The bundled plans are the ones the server gives: products.json's, in its currency.
        let served = try #require(shown.paywall)
        func byProduct(_ plans: [ResolvedPlan]) -> [String: String] {
            Dictionary(uniqueKeysWithValues: plans.map { ($0.productID, "\($0.key) \($0.price) \($0.period) \($0.currency)") })
        }
        #expect(byProduct(served.plans) == byProduct(plans))
        // The bundled paywall is the placement's default in placements.json.
        func member(_ value: JSONValue?, _ key: String) -> JSONValue? {
            guard case .object(let members)? = value else { return nil }
            return members.first { $0.0 == key }?.1
        }
        let placements = try JSONReader.parse(String(contentsOfFile: Abctl.packageRoot + "/Experiments/placements.json", encoding: .utf8)).value
        let fileDefault = member(member(member(placements, "placements"), "onboarding_end"), "default")
        #expect(member(fileDefault, "offering") == .string(onboarding.offering))
        #expect(member(fileDefault, "trial_days") == .number(Double(onboarding.trialDays)))
        #expect(member(fileDefault, "highlighted_plan") == onboarding.highlightedPlan.map(JSONValue.string))
        guard case .text(let bundledText, _, _) = onboarding.copy else { Issue.record("the bundled copy is not text"); return }
        #expect(member(member(fileDefault, "copy"), "text") == .string(bundledText))
        // The exposure when the placement showed an arm (a default or a fixed paywall logs none);
        // the purchase is the store webhook's to bring.
        let expected = [[shown.inExperiment ? "1" : "0"]]
        let stored = try await server.query("SELECT count(*) FROM events WHERE user_id = 'u1'")
        let diagnostics = await abctl.diagnostics().json.serialized()
        #expect(stored == expected, "variant \(String(describing: shown.variant)), \(diagnostics)")
        await abctl.close()
    }

    @Test func theReadmeShowsTheseLines() throws {
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let readme = try String(contentsOfFile: Abctl.packageRoot + "/README.md", encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let run = try #require(source.components(separatedBy: "// README begins\n").dropFirst().first?.components(separatedBy: "        // README ends").first)
        #expect(lines(block) == lines(run))
        #expect(lines(block).count <= 12)   // \"The app in a dozen lines\"
    }
}
