import ExperimentDefinitions

/// What the app tells the server about the user when it asks for a paywall.
public struct PaywallRequest: Sendable {
    /// Values for `{{ custom.NAME }}` placeholders, e.g. `userName`.
    public var variables: [String: String]
    /// Fixed onboarding answers that brief rules read; never free text.
    public var signals: [String: JSONValue]

    public init(variables: [String: String] = [:], signals: [String: JSONValue] = [:]) {
        self.variables = variables
        self.signals = signals
    }

    /// The user's name, which guards with `forbid_user_name` keep out of generated lines.
    public var userName: String? { variables["userName"] }
}
