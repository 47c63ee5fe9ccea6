/// The app's on-device language model, as AbctlClient needs it: one line of paywall copy.
///
/// On iOS 26 an adapter over Foundation Models' `LanguageModelSession` is about ten lines (see the
/// README, "Using abctl from an app"). Throw on failure; return the model's answer as it is (the
/// guard trims and checks it). Honour task cancellation when you can: past the deadline the call
/// is cancelled and its answer, if it still comes, is ignored.
public protocol CopyModel: Sendable {
    func line(instructions: String, prompt: String, options: CopyModelOptions) async throws -> String
}
