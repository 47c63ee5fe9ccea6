import Dispatch
import Events
import Foundation
import ExperimentDefinitions
import HTTPTransport
import Webhooks

/// What every webhook handler shares: an event a vendor's notification mapped to is checked as
/// `/v1/events` checks one, stored through the same writer, and answered once durable.
struct WebhookEventWriter: Sendable {
    let snapshots: SnapshotHolder
    let store: any EventStore
    let metrics: Metrics
    /// The node's clock for the time check (`ABCTL_NOW` where set); nil: now.
    let clock: Date?
    let log: Log

    /// Stores one mapped event and answers `stored` or `duplicate` once it is durable, or 503
    /// when the store cannot take it.
    ///
    /// `bodyField` names the field of the vendor's body an invalid event field came from; `count` records
    /// the outcome in the webhook's own metric. `after` runs once the event is durable (stored or
    /// a duplicate, so a retry redoes it) and before the answer; when it fails the answer is 503.
    func store(_ mapped: MappedEvent, bodyField: @Sendable (String) -> String, route: String,
               count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void,
               after: (@Sendable () throws -> Void)? = nil) throws -> HandlerOutcome {
        let type = mapped.type
        // The notification's events: the one it maps to and those it also says (an upgrade's charge).
        let mappedEvents = mapped.all.map(Self.event)
        // A doubtful event (revenue of the wrong sign, a time ahead of the clock) is acknowledged as
        // ignored with its reason: the vendor's retry could not mend it.
        let parser = snapshots.snapshot.eventParser.receiving(at: Timestamp(clock ?? Date()))
        if let doubt = mappedEvents.lazy.compactMap({ e in
            parser.revenueSignProblem(type: e.type, revenue: e.revenue) ?? parser.proceedsProblem(revenue: e.revenue, proceeds: e.proceeds)
                ?? parser.timeProblem(type: e.type, timestamp: e.timestamp)
        }).first {
            count(type.name, .ignored)
            log.write(level: .warning, "webhook event ignored", ["route": .string(route), "field": .string(bodyField(doubt.field)),
                                                                       "reason": .string(doubt.reason)])
            return .response(.json(.object([("status", .string("ignored")), ("type", .string(type.name)),
                                            ("reason", .string("doubtful_\(doubt.field)")), ("message", .string("\(bodyField(doubt.field)): \(doubt.reason)"))])))
        }
        // Checked and converted into the report currency as `/v1/events` does; a currency with no rate is 422, nothing stored.
        var events: [Event] = []
        for mappedEvent in mappedEvents {
            switch parser.check(mappedEvent) {
            case .success(let checked): events.append(checked)
            case .failure(let rejection):
                throw APIError(.unprocessable, code: "invalid_webhook_event", "\(rejection.field): \(rejection.reason)", field: bodyField(rejection.field))
            }
        }
        let store = self.store
        let metrics = self.metrics
        // The vendor's links (who is who) go in the same transaction as the events.
        let batch = events + Self.identifies(mapped.links, at: events[0].timestamp)
        return .deferred { respond in
            store.submit(batch) { result in
                switch result {
                case .success(let counts):
                    let answer = { @Sendable in
                        metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0)
                        if mapped.unmatchedStoreAccount && mapped.type.carriesRevenue && counts.stored >= 1 { metrics.unmatchedStorePayment() }
                        count(mapped.type.name, counts.stored >= 1 ? .mapped : .duplicate)
                        respond(.json(.object([("status", .string(counts.stored >= 1 ? "stored" : "duplicate")),
                                               ("type", .string(mapped.type.name)), ("event_id", .string(mapped.eventID.text))])))
                    }
                    guard let after else { return answer() }
                    // Completions run on the store's writer; a second write must not wait on it.
                    DispatchQueue.global().async {
                        do {
                            try after()
                            answer()
                        } catch {
                            respond(Self.storeUnavailable(error, route: route, log: log))
                        }
                    }
                case .failure(let error):
                    respond(Self.storeUnavailable(error, route: route, log: log))
                }
            }
        }
    }

    /// A delivery stored before (the vendor's retry, a Pub/Sub redelivery) answers `duplicate` with
    /// the type it was first stored as, before it is mapped again or anyone is called; nil
    /// when it was not stored. A store that cannot be read is 503, so the vendor retries.
    func redelivery(_ delivery: DeliveryKey?, route: String,
                    count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void) throws -> HandlerOutcome? {
        guard let delivery else { return nil }
        let first: WebhookDelivery?
        do {
            first = try store.delivery(key: delivery.key)
        } catch {
            throw Self.storeUnavailableError(error, route: route, log: log)
        }
        guard let first else { return nil }
        metrics.events(stored: 0, duplicate: 1, rejected: 0)
        count(first.type.name, .duplicate)
        return .response(.json(.object([("status", .string("duplicate")), ("type", .string(first.type.name)),
                                        ("event_id", .string(delivery.eventID.text))])))
    }

    /// Answers an ignored outcome at once, or stores the event, then keeps its ledger entry and,
    /// under `delivery`, what it was stored as (the first record stays: a retry after a failed
    /// ledger write keeps the type first stored).
    func store(_ outcome: WebhookOutcome, route: String, bodyField: @Sendable (String) -> String = { $0 }, delivery: DeliveryKey? = nil,
               count: @escaping @Sendable (String, Metrics.WebhookOutcome) -> Void) throws -> HandlerOutcome {
        switch outcome {
        case .ignored(let type, let reason):
            count(type, reason == .noUser ? .noUser : reason == .alreadyCounted ? .alreadyCounted : .ignored)
            var body: [(String, JSONValue)] = [("status", .string("ignored")), ("type", .string(type))]
            if reason != .type { body.append(("reason", .string(reason.rawValue))) }
            return .response(.json(.object(body)))
        case .links(let links, let milliseconds, let type):
            let events = Self.identifies(links, at: Timestamp(microseconds: milliseconds * 1000))
            let parser = snapshots.snapshot.eventParser.receiving(at: Timestamp(clock ?? Date()))
            if let doubt = events.lazy.compactMap({ parser.validate($0) }).first {
                count(type, .ignored)
                return .response(.json(.object([("status", .string("ignored")), ("type", .string(type)),
                                                ("reason", .string("doubtful_\(doubt.field)")), ("message", .string("\(doubt.field): \(doubt.reason)"))])))
            }
            let store = self.store, metrics = self.metrics
            return .deferred { respond in
                store.submit(events) { result in
                    switch result {
                    case .success(let counts):
                        metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0)
                        count(type, counts.stored >= 1 ? .mapped : .duplicate)
                        respond(.json(.object([("status", .string(counts.stored >= 1 ? "stored" : "duplicate")), ("type", .string(type)),
                                               ("linked", .number(Double(counts.stored)))])))
                    case .failure(let error):
                        respond(Self.storeUnavailable(error, route: route, log: log))
                    }
                }
            }
        case .event(let mapped, let remember):
            var after: (@Sendable () throws -> Void)?
            if remember != nil || delivery != nil {
                let store = self.store
                after = {
                    if let remember { try store.remember(remember.payment, keys: remember.keys) }
                    if let delivery { try store.recordDelivery(WebhookDelivery(userID: mapped.userID, type: mapped.type), key: delivery.key) }
                }
            }
            return try store(mapped, bodyField: bodyField, route: route, count: count, after: after)
        }
    }

    /// A mapped event as the stores keep it, before the checks every event passes.
    static func event(_ mapped: MappedEvent) -> Event {
        let type = mapped.type
        return Event(id: mapped.eventID, type: type, userID: mapped.userID,
                     timestamp: Timestamp(microseconds: mapped.timestampMilliseconds * 1000),
                     revenue: mapped.revenue, currency: mapped.currency, productID: mapped.productID,
                     trialDays: type == .trialStarted ? mapped.trialDays : nil,
                     store: mapped.store, proceeds: type.carriesRevenue ? mapped.proceeds : nil,
                     proceedsBeforeTax: mapped.proceeds != nil && mapped.proceedsBeforeTax,
                     reason: type == .expired ? mapped.reason : nil,
                     graceUntil: type == .billingIssue ? mapped.graceUntilMilliseconds.map { Timestamp(microseconds: $0 * 1000) } : nil,
                     previousProductID: type == .planChanged ? mapped.previousProductID : nil,
                     effective: type == .planChanged ? mapped.effective : nil)
    }

    /// A vendor's links as `identified` events, keyed as `/v1/identify` keys them.
    static func identifies(_ links: [MappedLink], at ts: Timestamp) -> [Event] {
        links.map { Event(id: EventID("identify:" + $0.identity.text), type: .identified, userID: $0.user, timestamp: ts, identity: $0.identity) }
    }

    /// A failed commit: the details go to the log, the client learns only that nothing was stored.
    static func storeUnavailable(_ error: any Error, route: String, log: Log) -> HTTPResponse {
        log.write(level: .error, "event store failure", ["route": .string(route), "error": .string(String(describing: error))])
        return ErrorResponses.response(for: APIError(.unavailable, code: "store_unavailable",
                                                     "the event store could not commit; nothing was stored, retry later"), route: route, log: log)
    }

    /// A store failure met before anything was stored: 503, so the vendor retries.
    static func storeUnavailableError(_ error: any Error, route: String, log: Log) -> APIError {
        log.write(level: .error, "webhook lookup failed", ["route": .string(route), "error": .string(String(describing: error))])
        return APIError(.unavailable, code: "store_unavailable", "the store could not be read; nothing was stored (retry later)")
    }

    /// A webhook's or a lookup's error in its HTTP form; a store error becomes 503.
    static func apiError(_ error: any Error, route: String, log: Log) -> APIError {
        switch error {
        case let failure as WebhookError: APIError(webhook: failure)
        case let failure as APIError: failure
        default: storeUnavailableError(error, route: route, log: log)
        }
    }
}

/// The store reads the webhooks' mappings ask for, answered from the store.
struct StoreLookups: Sendable {
    let store: any EventStore

    /// Whether a renewal for this user is the trial's conversion (see `TrialHistory`).
    func trialAwaitingConversion(userID: UserID) throws -> Bool {
        try store.trialAwaitingConversion(userID: userID)
    }

    /// The user whose exposures carry this store account id (`appAccountToken`, Play's
    /// obfuscated account id), or nil: the webhook then takes the id itself as the user.
    func userForStoreAccount(_ account: String) throws -> String? {
        try store.user(forStoreAccount: account)?.text
    }

    func payment(key: String) throws -> LedgerPayment? {
        try store.payment(key: key)
    }
}

extension APIError {
    /// The HTTP form of a webhook's refusal.
    init(webhook error: WebhookError) {
        let kind: APIError.Kind = switch error.kind {
        case .malformed: .badRequest
        case .unverified: .unauthorized
        case .unprocessable: .unprocessable
        case .unavailable: .unavailable
        }
        self.init(kind, code: error.code, error.message, field: error.field)
    }
}
