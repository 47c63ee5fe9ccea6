/// What the app knows about the user when it is about to show a paywall (the body of `POST /v1/assign`).
public struct PaywallQuery: Sendable {
    public var userID: UserID
    /// The experiment whose paywall to show.
    public var experiment: String
    /// Targeting attributes: `platform`, `country`, `language`, `app_version`, `new_user`, …
    public var attributes: [String: JSONValue]
    /// Values for `{{ custom.NAME }}` placeholders, e.g. `userName`.
    public var variables: [String: String]
    /// Fixed onboarding answers that AI briefs read; never free text.
    public var signals: [String: JSONValue]

    public init(userID: UserID, experiment: String, attributes: [String: JSONValue] = [:], variables: [String: String] = [:],
                signals: [String: JSONValue] = [:]) {
        self.userID = userID
        self.experiment = experiment
        self.attributes = attributes
        self.variables = variables
        self.signals = signals
    }

    /// The request body, members in a fixed order. Without a model on the device, the body says
    /// so (`on_device_model: false`): a server run with `--llm-url` then writes the AI line itself.
    func body(hasModel: Bool) -> JSONValue {
        assignBody(userID: userID, attributes: attributes, variables: variables, signals: signals,
                   target: ("experiments", .array([.string(experiment)])), hasModel: hasModel)
    }
}

/// A `POST /v1/assign` body, members in a fixed order: the user, what the app knows, then `target`
/// (`experiments` or `placement`) and whether the device has a model.
func assignBody(userID: UserID, attributes: [String: JSONValue], variables: [String: String], signals: [String: JSONValue],
                target: (String, JSONValue), hasModel: Bool) -> JSONValue {
    .object([
        ("user_id", .string(userID.text)),
        ("attributes", .object(attributes.sorted { $0.key < $1.key })),
        ("variables", .object(variables.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ("signals", .object(signals.sorted { $0.key < $1.key })),
        target,
        ("on_device_model", .bool(hasModel)),
    ])
}
