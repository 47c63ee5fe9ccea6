import ExperimentDefinitions
import Foundation
import Testing

/// What a vendor fixture says a stored event of the subscription's life keeps, checked on the
/// stored row (`event_id` the vendor's delivery id; a companion event's is that id, `:` and its type).
struct WebhookLifeRow: Decodable, Sendable {
    var reason: String?
    var product_id: String?
    var previous_product_id: String?
    var effective: String?
    var grace_until_ms: Int64?
    var revenue: Double?
    /// A charge stored beside the event (an App Store upgrade's), as `renewed` with this revenue.
    var renewed: Double?
    /// An end stored beside the event (a Google Play revocation's), as `expired` with this reason.
    var ended: String?

    /// Checks the rows stored under `eventID` against this one.
    func expect(in server: InProcessServer, eventID: String, _ name: String) async throws {
        let columns = "reason, product_id, previous_product_id, effective, grace_until_ts, revenue"
        let row = try await server.query("SELECT \(columns) FROM events WHERE event_id = '\(eventID)'").first ?? []
        #expect(row.count == 6, "\(name): no row for \(eventID)")
        guard row.count == 6 else { return }
        if let reason { #expect(row[0] == reason, "\(name): reason \(row)") }
        if let product_id { #expect(row[1] == product_id, "\(name): product_id \(row)") }
        if let previous_product_id { #expect(row[2] == previous_product_id, "\(name): previous_product_id \(row)") }
        if let effective { #expect(row[3] == effective, "\(name): effective \(row)") }
        if let grace_until_ms { #expect(row[4] == String(grace_until_ms * 1000), "\(name): grace_until_ts \(row)") }
        if let revenue { #expect(abs((Double(row[5]) ?? .nan) - revenue) < 1e-9, "\(name): revenue \(row)") }
        if let renewed {
            let charge = try await server.query("SELECT type, revenue FROM events WHERE event_id = '\(eventID):renewed'").first ?? []
            #expect(charge.count == 2 && charge[0] == String(EventType.renewed.rawValue) && abs((Double(charge[1]) ?? .nan) - renewed) < 1e-9, "\(name): the charge \(charge)")
        }
        if let ended {
            let end = try await server.query("SELECT type, reason FROM events WHERE event_id = '\(eventID):expired'").first ?? []
            #expect(end == [String(EventType.expired.rawValue), ended], "\(name): the end \(end)")
        }
    }
}
