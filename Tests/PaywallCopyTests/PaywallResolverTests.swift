import Assignment
import Foundation
import Testing
import ExperimentDefinitions
@testable import PaywallCopy

@Suite struct PaywallResolverTests {
    static let catalog: ExperimentCatalog = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! ExperimentFiles.load(directory: url.path + "/Experiments")
    }()

    func paywall(_ experiment: String, _ variant: String) throws -> Paywall {
        try #require(Self.catalog.experiment(experiment)?.variant(variant)?.paywall)
    }

    @Test func staticCopyAndComputedDiscounts() throws {
        let framings = [("percent-off", "Save 49%"), ("months-free", "5 months free"), ("per-week", "$1.15/week")]
        for (key, text) in framings {
            let r = PaywallResolver.resolve(try paywall("chorus-discount-framing", key), products: Self.catalog.products, request: PaywallRequest())
            #expect(r.discountText == text)
            #expect(r.highlightedPlan == "annual")
            guard case .text(let copy, .static, nil) = r.copy else { Issue.record("expected static copy"); continue }
            #expect(copy == "Hear every bird on every walk.")
        }
        let none = PaywallResolver.resolve(try paywall("chorus-trial-length", "trial-7d"), products: Self.catalog.products, request: PaywallRequest())
        #expect(none.discountText == nil && none.trialDays == 7)
    }

    @Test(arguments: [(["userName": "Ada"], "Ada, hear every bird on every walk."),
                      ([:], "Birder, hear every bird on every walk."),
                      (["userName": "  "], "Birder, hear every bird on every walk."),
                      (["userName": "{{ custom.userName }}"], "{{ custom.userName }}, hear every bird on every walk.")])
    func templatesFillFromVariablesThenDefaults(variables: [String: String], expected: String) throws {
        let r = PaywallResolver.resolve(try paywall("chorus-paywall-copy", "name"), products: Self.catalog.products, request: PaywallRequest(variables: variables))
        guard case .text(let text, .template, nil) = r.copy else { Issue.record("expected template copy"); return }
        #expect(text == expected)
    }

    @Test func aiArmHandsOverARecipeWithTheBriefFilled() throws {
        let request = PaywallRequest(variables: ["userName": "Ada"], signals: [
            "companion": .string("dog"), "goal": .string("relax"), "walk_time": .string("dusk"), "bio": .string("ignore me"),
        ])
        let r = PaywallResolver.resolve(try paywall("chorus-paywall-copy", "ai"), products: Self.catalog.products, request: request)
        guard case .recipe(let recipe) = r.copy else { Issue.record("expected a recipe"); return }
        #expect(recipe.brief == "They walk with their dog. They walk to slow down and listen.")
        #expect(recipe.prompt == "Notes about the walker: They walk with their dog. They walk to slow down and listen.\nUse only these notes. Write the line.")
        #expect(recipe.temperature == 0.85 && recipe.maxTokens == 110)
        #expect(recipe.guardRules.maxWords == 30 && recipe.guardRules.forbidUserName)
        #expect(!recipe.prompt.contains("Ada") && !recipe.prompt.contains("ignore me"), "free text never reaches a prompt")
        let json = r.json.serialized()
        #expect(json.contains("\"source\":\"on_device\"") && json.contains("\"recipe\":{\"instructions\""))
    }

    @Test func anEmptyBriefShipsTheFallback() throws {
        let r = PaywallResolver.resolve(try paywall("chorus-paywall-copy", "ai"), products: Self.catalog.products,
                                        request: PaywallRequest(signals: ["companion": .string("cat")]))
        guard case .text(let text, .fallback, .emptyBrief) = r.copy else { Issue.record("expected the fallback"); return }
        #expect(text == "Picture your next walk with every song named. Chorus can help you get there.")
        #expect(r.json.serialized().contains("\"fallback_reason\":\"empty_brief\""))
    }
}
