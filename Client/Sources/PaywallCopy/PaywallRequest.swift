import ExperimentDefinitions

/// What the app tells the server about the user when it asks for a paywall.
public struct PaywallRequest: Sendable {
    /// Values for `{{ custom.NAME }}` placeholders, e.g. `userName`.
    public var variables: [String: String]
    /// Fixed onboarding answers that brief rules read; never free text.
    public var signals: [String: JSONValue]
    /// False when the device cannot run a model: a server that generates copy then writes the
    /// line itself instead of handing over the recipe.
    public var hasOnDeviceModel: Bool

    public init(variables: [String: String] = [:], signals: [String: JSONValue] = [:], hasOnDeviceModel: Bool = true) {
        self.variables = variables
        self.signals = signals
        self.hasOnDeviceModel = hasOnDeviceModel
    }

    /// The user's name, which guards with `forbid_user_name` keep out of generated lines.
    public var userName: String? { variables["userName"] }
}
