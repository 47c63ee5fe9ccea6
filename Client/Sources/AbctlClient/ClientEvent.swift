import ExperimentDefinitions
import Foundation

/// One event as the app logs it, in the shape the server takes. Its id is made once, when the
/// event is created, and travels with it through the queue and every resend: the server stores
/// it once per (user, id).
public struct ClientEvent: Sendable, Equatable {
    /// The event types, the same vocabulary the server parses.
    public typealias Kind = EventType

    public var id: EventID
    public var kind: Kind
    public var userID: UserID
    public var timestamp: Date
    public var experiment: String?
    public var variant: String?
    public var revenue: Double?
    public var currency: String?
    public var productID: String?
    public var copySource: CopySource?
    public var copyText: String?
    public var copyFallbackReason: FallbackReason?
    /// The placement the paywall was shown at, and the attributes the app sent to assign.
    public var placement: String?
    public var attributes: [String: JSONValue]?
    /// What the app hands the App Store (`appAccountToken`) and Google Play (obfuscated account id)
    /// for this user (exposures only). The client fills it with `AbctlClient.storeAccountID(for:)`.
    public var storeAccountID: String?
    /// The known id an `identified` event links `userID` to: from then on one person.
    public var identity: UserID?
    /// A bandit exposure's allocation period, as the assign answer gave it.
    public var allocationPeriod: Date?

    public init(id: EventID = EventID(UUID().uuidString.lowercased()), kind: Kind, userID: UserID, timestamp: Date = Date(),
                experiment: String? = nil, variant: String? = nil, revenue: Double? = nil, currency: String? = nil,
                productID: String? = nil, copySource: CopySource? = nil, copyText: String? = nil, copyFallbackReason: FallbackReason? = nil) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.timestamp = timestamp
        self.experiment = experiment
        self.variant = variant
        self.revenue = revenue
        self.currency = currency
        self.productID = productID
        self.copySource = copySource
        self.copyText = copyText
        self.copyFallbackReason = copyFallbackReason
    }

    /// The exposures of a placement's answer: the experiment's when the user is in it, and the
    /// user's arm of each global holdout; each carries the placement and the attributes sent.
    /// Empty when there is nothing to log (the default, an audience's fixed paywall).
    public static func exposures(of answer: PlacementAnswer, at timestamp: Date = Date()) -> [ClientEvent] {
        var events: [ClientEvent] = []
        if answer.inExperiment, let experiment = answer.experiment, let variant = answer.variant {
            var e = ClientEvent(kind: .exposure, userID: answer.userID, timestamp: timestamp, experiment: experiment, variant: variant,
                                copySource: answer.copy?.source, copyText: answer.copy?.text, copyFallbackReason: answer.copy?.fallbackReason)
            e.placement = answer.placement
            e.attributes = answer.attributes
            e.allocationPeriod = answer.allocationPeriod
            events.append(e)
        }
        for h in answer.holdouts {
            var e = ClientEvent(kind: .exposure, userID: answer.userID, timestamp: timestamp, experiment: h.experiment, variant: h.variant)
            e.placement = answer.placement
            e.attributes = answer.attributes
            events.append(e)
        }
        return events
    }

    /// The exposure of a paywall that was shown: its variant and the copy it showed, with where
    /// the line came from and why it fell back. Nil for the default paywall, which is no variant.
    public static func exposure(of answer: PaywallAnswer, at timestamp: Date = Date()) -> ClientEvent? {
        guard let variant = answer.variant else { return nil }
        var e = ClientEvent(kind: .exposure, userID: answer.userID, timestamp: timestamp, experiment: answer.experiment, variant: variant,
                            copySource: answer.copy.source, copyText: answer.copy.text, copyFallbackReason: answer.copy.fallbackReason)
        e.allocationPeriod = answer.allocationPeriod
        return e
    }

    /// The `identified` event of a log-in: `user` (the id used so far) is `identity`'s. Its id is
    /// `identify:IDENTITY`, the one `POST /v1/identify` gives, so the server stores it once.
    public static func identified(user: UserID, identity: UserID, at timestamp: Date = Date()) -> ClientEvent {
        var e = ClientEvent(id: EventID("identify:\(identity.text)"), kind: .identified, userID: user, timestamp: timestamp)
        e.identity = identity
        return e
    }

    /// The event as one line of `POST /v1/events`: each key its kind carries (`EventField`), in
    /// line order, when the event has a value for it.
    public var json: JSONValue {
        .object(EventField.keys(of: kind).compactMap { field in value(of: field).map { (field.key, $0) } })
    }

    /// The value this event sends for `field`; nil for a key it has no value for.
    private func value(of field: EventField) -> JSONValue? {
        switch field {
        case .eventID: .string(id.text)
        case .type: .string(kind.name)
        case .userID: .string(userID.text)
        case .ts: .string(RFC3339.format(timestamp))
        case .experiment: experiment.map(JSONValue.string)
        case .variant: variant.map(JSONValue.string)
        case .revenue: revenue.map(JSONValue.number)
        case .currency: currency.map(JSONValue.string)
        case .productID: productID.map(JSONValue.string)
        case .copySource: copySource.map { .string($0.rawValue) }
        case .copyText: copyText.map(JSONValue.string)
        case .copyFallbackReason: copyFallbackReason.map { .string($0.rawValue) }
        case .placement: placement.map(JSONValue.string)
        case .attributes: attributes.map { .object($0.sorted { $0.key < $1.key }) }
        case .storeAccountID: storeAccountID.map(JSONValue.string)
        case .identity: identity.map { .string($0.text) }
        case .allocationPeriod: allocationPeriod.map { .string(RFC3339.format($0)) }
        // What the stores say (the webhooks send it): an app logs exposures and links, not payments or their life.
        case .trialDays, .store, .proceeds, .reason, .graceUntil, .previousProductID, .effective: nil
        }
    }
}
