/// Turns an AI recipe into the line to show on the device: the model, the recipe's guard, one more
/// try on a rejection, a deadline over both, and the fallback with its reason otherwise.
struct OnDeviceCopyWriter: Sendable {
    var model: (any CopyModel)?
    var deadline: Duration

    func write(_ recipe: CopyRecipe, userName: String?) async -> ShownCopy {
        guard let model else { return fallback(recipe, .noModel, "the app has no on-device model") }
        let options = CopyModelOptions(temperature: recipe.temperature, maxTokens: recipe.maxTokens)
        do {
            return try await withDeadline(deadline) {
                var rejection = ""
                for _ in 0..<2 {
                    let answer = try await model.line(instructions: recipe.instructions, prompt: recipe.prompt, options: options)
                    let verdict = recipe.guardRules.check(answer, userName: userName)
                    // An answer that is empty once trimmed is the model's failure, not the guard's: no second try.
                    if verdict.text.isEmpty { return fallback(recipe, .emptyAnswer, "the model answered nothing") }
                    if verdict.accepted { return ShownCopy(text: verdict.text, source: .onDevice) }
                    rejection = "\"\(verdict.text)\": \(verdict.violations.map(\.description).joined(separator: "; "))"
                }
                return fallback(recipe, .guardRejected, rejection)
            }
        } catch is DeadlineExceeded {
            return fallback(recipe, .timeout, "no acceptable line within \(deadline)")
        } catch {
            return fallback(recipe, .error, String(describing: error))
        }
    }

    private func fallback(_ recipe: CopyRecipe, _ reason: FallbackReason, _ detail: String) -> ShownCopy {
        ShownCopy(text: recipe.fallback, source: .fallback, fallbackReason: reason, detail: detail)
    }
}
