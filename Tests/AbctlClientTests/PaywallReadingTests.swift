@testable import AbctlClient
import Testing

/// Reading a `/v1/assign` paywall back (server answers, the cache file) is the inverse of writing it.
@Suite struct PaywallReadingTests {
    static let recipe = CopyRecipe(
        instructions: "Write one line.", brief: "They walk with their dog.", prompt: "Notes: They walk with their dog.\nWrite the line.",
        temperature: 0.85, maxTokens: 110,
        guardRules: CopyGuard(maxWords: 30, forbid: ["?", "\u{2014}"], forbidWords: ["free"], mentionOnce: ["Chorus"], forbidUserName: true),
        fallback: "Chorus names every song.")

    static let paywalls: [ResolvedPaywall] = [
        ResolvedPaywall(offering: "chorus_plus", trialDays: 7, discountFraming: .monthsFree, discountText: "5 months free",
                        highlightedPlan: "annual", copy: .recipe(recipe)),
        ResolvedPaywall(offering: "chorus_plus", trialDays: 0, copy: .text("Robin, \"hear\" every bird.", source: .template, fallbackReason: nil)),
        ResolvedPaywall(offering: "chorus_plus", trialDays: 3, discountFraming: .perWeek, discountText: "$1.15/week",
                        copy: .text("Chorus names every song.", source: .fallback, fallbackReason: .emptyBrief)),
    ]

    @Test(arguments: paywalls)
    func roundTrip(_ paywall: ResolvedPaywall) throws {
        let read = try ResolvedPaywall(reading: paywall.json)
        #expect(read.json == paywall.json)
    }

    @Test func aRecipeKeepsItsGuard() throws {
        guard case .recipe(let read) = try ResolvedPaywall(reading: Self.paywalls[0].json).copy else {
            Issue.record("not a recipe")
            return
        }
        #expect(read.guardRules == Self.recipe.guardRules)
        #expect(read.temperature == 0.85)
        #expect(read.maxTokens == 110)
    }

    @Test func missingFieldsAreNamed() {
        #expect(throws: PaywallReadingError.self) { try ResolvedPaywall(reading: .object([("offering", .string("x"))])) }
        let noCopy = JSONValue.object([("offering", .string("x")), ("trial_days", .number(3))])
        do {
            _ = try ResolvedPaywall(reading: noCopy)
            Issue.record("read a paywall without copy")
        } catch {
            #expect(error.description == "paywall.copy is missing")
        }
    }
}

extension ResolvedPaywall: @retroactive CustomTestStringConvertible {
    public var testDescription: String { "\(offering) \(trialDays)d \(json.serialized().prefix(60))" }
}
