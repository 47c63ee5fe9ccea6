/// One place in the app that may show a paywall (`placements.json`): its audiences,
/// read top to bottom, and the paywall when none matches or the experiment does not take the user.
public struct Placement: Sendable {
    public var id: String
    /// nil: no paywall by default.
    public var defaultPaywall: Paywall?
    public var audiences: [Audience]

    public init(id: String, defaultPaywall: Paywall?, audiences: [Audience]) {
        self.id = id
        self.defaultPaywall = defaultPaywall
        self.audiences = audiences
    }
}

/// Who an audience takes (its `condition`, nil for everyone) and what they see.
public struct Audience: Sendable {
    public enum Shows: Sendable {
        /// An experiment, assigned as usual (the placement's default for users it does not take).
        case experiment(String)
        /// A fixed paywall; nil shows no paywall here.
        case paywall(Paywall?)
    }

    public var name: String
    /// A GrowthBook condition over the request's attributes; nil matches everyone.
    public var condition: JSONValue?
    public var shows: Shows

    public init(name: String, condition: JSONValue?, shows: Shows) {
        self.name = name
        self.condition = condition
        self.shows = shows
    }

    public var experimentID: String? {
        if case .experiment(let id) = shows { id } else { nil }
    }
}
