import Foundation

/// The app is about to show a paywall at a placement (the body of `POST /v1/assign` with `placement`).
///
/// The app names where it is, never an experiment: `placements.json` on the server decides which
/// experiment, fixed paywall or none this user sees there, so experiments start, stop
/// and ship without an app release.
public struct PlacementQuery: Sendable {
    public var userID: UserID
    /// A placement of `placements.json`, e.g. `onboarding_end`.
    public var placement: String
    /// Targeting attributes: `platform`, `country`, `language`, `app_version`, `new_user`, and
    /// anything an audience's condition reads. The exposure carries them too.
    public var attributes: [String: JSONValue]
    /// Values for `{{ custom.NAME }}` placeholders, e.g. `userName`.
    public var variables: [String: String]
    /// Fixed onboarding answers that AI briefs read; never free text.
    public var signals: [String: JSONValue]

    public init(userID: UserID, placement: String, attributes: [String: JSONValue] = [:], variables: [String: String] = [:],
                signals: [String: JSONValue] = [:]) {
        self.userID = userID
        self.placement = placement
        self.attributes = attributes
        self.variables = variables
        self.signals = signals
    }

    func body(hasModel: Bool) -> JSONValue {
        assignBody(userID: userID, attributes: attributes, variables: variables, signals: signals,
                   target: ("placement", .string(placement)), hasModel: hasModel)
    }
}

/// What `paywall(for: PlacementQuery)` answers: always an answer (show a paywall, or none), where
/// it came from, and why.
public struct PlacementAnswer: Sendable {
    public var userID: UserID
    public var placement: String
    /// False: show no paywall here (an audience or arm with no paywall, or a default of none).
    public var showPaywall: Bool
    /// The paywall to show, with its offering's plans; nil when `showPaywall` is false.
    public var paywall: ResolvedPaywall?
    /// The line to show; nil with no paywall.
    public var copy: ShownCopy?
    /// The audience that decided and its experiment, when the server answered (or the cache did).
    public var audience: String?
    public var experiment: String?
    /// The variant, set when the user is in the experiment: then `logExposure` logs it.
    public var variant: String?
    public var inExperiment: Bool
    /// The user's arm in each global holdout that takes them: logged with the exposure.
    public var holdouts: [(experiment: String, variant: String)]
    /// The attributes the query sent, carried by the exposures.
    public var attributes: [String: JSONValue]
    public var source: PaywallSource
    /// The server's reason (`assigned`, `audience`, `default`, `holdout`, `shipped`, …) or why the server was not used.
    public var reason: AnswerReason
    /// A bandit's allocation period that drew the arm (the server's or the cached answer's): the
    /// exposure echoes it, so the report counts the user in that period.
    public var allocationPeriod: Date? = nil
}
