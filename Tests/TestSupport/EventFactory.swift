import ExperimentDefinitions
import Events

/// Builds events tersely: times are hours after a fixed instant (2026-12-01T00:00:00Z).
public enum EventFactory {
    public static let origin = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!

    public static func at(_ hours: Double) -> Timestamp { origin.adding(hours: hours) }

    public static func exposure(_ id: EventID, user: UserID, experiment: String, variant: String, hours: Double,
                                copySource: CopySource? = nil, fallbackReason: String? = nil,
                                placement: String? = nil, attributes: [(key: String, value: ExposureAttributes.Value)] = []) -> Event {
        Event(id: id, type: .exposure, userID: user, timestamp: at(hours), experiment: experiment, variant: variant,
              copySource: copySource, copyText: copySource == nil ? nil : "A line.", copyFallbackReason: fallbackReason,
              placement: placement, attributes: ExposureAttributes(attributes))
    }

    public static func event(_ id: EventID, _ type: EventType, user: UserID, hours: Double, revenue: Double? = nil) -> Event {
        Event(id: id, type: type, userID: user, timestamp: at(hours), revenue: revenue, currency: revenue == nil ? nil : "USD")
    }
}
