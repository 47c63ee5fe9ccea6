import ExperimentDefinitions
/// Derives a user's facts from all of that user's stored events.
///
/// Events are put in one total order, (ts, type, event_id), before anything is decided, so
/// the result depends only on the set of events, never on the order they arrived in. Every
/// store computes facts with it, and the conformance tests check stores against it.
public enum FactsBuilder {
    /// The parts of a stored event that facts depend on.
    public struct Source: Sendable {
        public var type: EventType
        public var ts: Int64
        public var experiment: String?
        public var variant: String?
        public var revenueContribution: Double
        /// The contribution to proceeds, with the revenue's sign.
        public var proceedsContribution: Double
        /// The proceeds are the revenue less the store's cut (tax not known).
        public var proceedsBeforeTax: Bool
        public var store: PaymentStore?
        /// Revenue events' `product_id` (the forecast's plan).
        public var productID: String?
        public var copySource: CopySource?
        public var copyFallbackReason: String?
        public var eventID: EventID
        public var placement: String?
        public var attributes: ExposureAttributes
        /// The trial the store granted (trial starts).
        public var trialDays: Int?
        /// Which of a person's ids the event came under, when facts are a person's:
        /// the last tie-break of the order, so two ids' events with one `event_id` order alike everywhere.
        public var member: UserID?
        /// An exposure's `allocation_period` (microseconds).
        public var allocationPeriod: Int64?
        /// An `expired` event's reason.
        public var reason: ExpiryReason?

        public init(type: EventType, ts: Int64, experiment: String?, variant: String?, revenueContribution: Double,
                    copySource: CopySource?, copyFallbackReason: String?, eventID: EventID,
                    placement: String? = nil, attributes: ExposureAttributes = .empty, trialDays: Int? = nil,
                    proceeds: Double? = nil, proceedsBeforeTax: Bool = false, store: PaymentStore? = nil, productID: String? = nil,
                    allocationPeriod: Int64? = nil, reason: ExpiryReason? = nil) {
            self.type = type
            self.ts = ts
            self.experiment = experiment
            self.variant = variant
            self.revenueContribution = revenueContribution
            // Events stored without proceeds (before they existed) named no store: no cut, tax not known.
            self.proceedsContribution = proceeds.map { type.revenueContribution($0) } ?? revenueContribution
            self.proceedsBeforeTax = proceeds == nil ? revenueContribution != 0 : proceedsBeforeTax
            self.store = store
            self.productID = type.carriesRevenue ? productID : nil
            self.copySource = copySource
            self.copyFallbackReason = copyFallbackReason
            self.eventID = eventID
            self.placement = placement
            self.attributes = attributes
            self.trialDays = trialDays
            self.allocationPeriod = type == .exposure ? allocationPeriod : nil
            self.reason = type == .expired ? reason : nil
        }

        /// The `events` columns `init(_:)` reads: what every reader of stored events into facts
        /// selects (and decodes by name), so none leaves a field out.
        public static let columns: [EventColumn] = {
            let read: Set = ["type", "ts", "experiment", "variant", "revenue", "copy_source", "copy_fallback_reason", "event_id",
                             "placement", "attributes", "trial_days", "store", "proceeds", "proceeds_before_tax", "product_id",
                             "allocation_period_ts", "reason"]
            return EventColumns.all.filter { read.contains($0.name) }
        }()

        public init(_ event: Event) {
            let exposure = event.type == .exposure
            self.init(type: event.type, ts: event.timestamp.microseconds, experiment: exposure ? event.experiment : nil,
                      variant: exposure ? event.variant : nil, revenueContribution: event.type.revenueContribution(event.revenue),
                      copySource: exposure ? event.copySource : nil, copyFallbackReason: exposure ? event.copyFallbackReason : nil,
                      eventID: event.id, placement: exposure ? event.placement : nil,
                      attributes: exposure ? event.attributes : .empty,
                      trialDays: event.type == .trialStarted ? event.trialDays : nil,
                      proceeds: event.type.carriesRevenue ? event.proceeds : nil, proceedsBeforeTax: event.proceedsBeforeTax, store: event.store,
                      productID: event.productID, allocationPeriod: event.allocationPeriod?.microseconds, reason: event.reason)
        }
    }

    /// A person's facts (docs/People.md): the events of each of its ids, keyed by `person`.
    public static func facts(person: UserID, members: [(id: UserID, events: [Source])]) -> [UserFacts] {
        var all: [Source] = []
        for (id, events) in members {
            for var e in events {
                e.member = id
                all.append(e)
            }
        }
        return facts(userID: person, events: all)
    }

    /// The facts of every experiment `userID` was exposed to, from all of that user's events
    /// (events of other users must not be passed), by first exposure.
    public static func facts(userID: UserID, events: [Event]) -> [UserFacts] {
        facts(userID: userID, events: events.map(Source.init))
    }

    public static func facts(userID: UserID, events: [Source]) -> [UserFacts] {
        guard events.contains(where: { $0.type == .exposure }) else { return [] }
        var ordered = events.sorted { a, b in
            if a.ts != b.ts { return a.ts < b.ts }
            if a.type != b.type { return a.type.rawValue < b.type.rawValue }
            if a.eventID != b.eventID { return a.eventID < b.eventID }
            switch (a.member, b.member) {
            case let (x?, y?): return x < y
            case (nil, _?): return true
            default: return false
            }
        }
        refundProceeds(&ordered)
        // First exposure per experiment, in event order.
        var result: [UserFacts] = []
        var seen: Set<String> = []
        for e in ordered where e.type == .exposure {
            guard let experiment = e.experiment, let variant = e.variant else { continue }
            guard seen.insert(experiment).inserted else {
                // A later exposure to another variant of the same experiment: the user stays in the first.
                if let i = result.firstIndex(where: { $0.experiment == experiment }), result[i].variant != variant { result[i].crossedOver = true }
                continue
            }
            result.append(UserFacts(experiment: experiment, userID: userID, variant: variant,
                                    firstExposure: Timestamp(microseconds: e.ts),
                                    copySource: e.copySource, copyFallbackReason: e.copyFallbackReason,
                                    placement: e.placement, attributes: e.attributes,
                                    allocationPeriod: e.allocationPeriod.map { Timestamp(microseconds: $0) }))
        }
        for index in result.indices {
            var f = result[index]
            let from = f.firstExposure.microseconds
            var revenue = 0.0
            var entries: [RevenueEntry] = []
            var life: [Source] = []
            for e in ordered where e.ts >= from {
                switch e.type {
                case .exposure: break
                case .trialStarted:
                    if f.trialStart == nil {
                        f.trialStart = Timestamp(microseconds: e.ts)
                        f.grantedTrialDays = e.trialDays
                    }
                case .purchased: if f.firstPaid == nil { f.firstPaid = Timestamp(microseconds: e.ts) }
                case .converted:
                    if f.firstPaid == nil { f.firstPaid = Timestamp(microseconds: e.ts) }
                    if f.firstConverted == nil { f.firstConverted = Timestamp(microseconds: e.ts) }
                case .renewed, .identified, .planChanged: break
                case .cancelled, .uncancelled, .expired: life.append(e)
                case .billingIssue: if f.billingIssueAt == nil { f.billingIssueAt = Timestamp(microseconds: e.ts) }
                case .refunded: if f.refundedAt == nil { f.refundedAt = Timestamp(microseconds: e.ts) }
                }
                revenue += e.revenueContribution
                if e.revenueContribution != 0 {
                    entries.append(RevenueEntry(offset: e.ts - from, amount: e.revenueContribution,
                                                proceeds: e.proceedsContribution, proceedsBeforeTax: e.proceedsBeforeTax, productID: e.productID))
                }
            }
            subscriptionLife(life, from: f.trialStart?.microseconds ?? from, into: &f)
            f.netRevenue = revenue
            f.revenueEntries = entries
            result[index] = f
        }
        return result
    }

    /// The one end rule: a cancel stands unless an `uncancelled` follows it before the subscription
    /// expires (the period it was paid for is over); the first cancel that stands, and the first expiry
    /// other than a pause, from `from` (the trial start, else the first exposure). `life` holds the
    /// user's cancels, uncancels and expiries from the first exposure, in event order. An `uncancelled`
    /// with no cancel open before it changes nothing and is kept as stray.
    ///
    /// So that a report as of any moment reads the ends as they stood then, the cancels undone in
    /// time are kept with when they were undone, and the ends after the first expiry (a
    /// re-subscription's: a later start is no new start of survival, but the forecast reads them).
    static func subscriptionLife(_ life: [Source], from: Int64, into f: inout UserFacts) {
        var open: Int64?
        // An end that stood: the first subscription's cancel, or a re-subscription's end.
        func stood(_ cancel: Int64) {
            if f.expiredAt == nil && f.firstCancel == nil {
                f.firstCancel = Timestamp(microseconds: cancel)
            } else {
                f.laterEnds.append(EndSpan(at: cancel))
            }
        }
        for e in life {
            switch e.type {
            case .cancelled:
                if e.ts >= from, open == nil { open = e.ts }
            case .uncancelled:
                if f.firstUncancel == nil { f.firstUncancel = Timestamp(microseconds: e.ts) }
                if let cancel = open {
                    let span = EndSpan(at: cancel, undoneAt: e.ts)
                    if f.expiredAt == nil { f.undoneCancels.append(span) } else { f.laterEnds.append(span) }
                    open = nil
                } else if f.strayUncancel == nil {
                    f.strayUncancel = Timestamp(microseconds: e.ts)
                }
            case .expired:
                guard e.ts >= from, let reason = e.reason, let kind = SubscriptionEndKind(reason) else { continue }
                // The period is over: a cancel still open stood.
                if let cancel = open { stood(cancel) }
                open = nil
                if f.expiredAt == nil {
                    f.expiredAt = Timestamp(microseconds: e.ts)
                    f.expiryKind = kind
                } else {
                    f.laterEnds.append(EndSpan(at: e.ts))
                }
            default: break
            }
        }
        // Nothing undid it (yet): the cancel stands.
        if let cancel = open { stood(cancel) }
    }

    /// A refund's proceeds are −(the refunded payment's proceeds × refunded / paid), except
    /// Stripe's, which keeps its fee (the whole amount refunded, as the parser gives it). A refund whose
    /// store did not say its proceeds takes the share of the user's last payment before it whose store did;
    /// otherwise it keeps its store's cut, as the parser estimated it.
    static func refundProceeds(_ ordered: inout [Source]) {
        var lastPaid: (revenue: Double, proceeds: Double)?
        for i in ordered.indices {
            let e = ordered[i]
            switch e.type {
            case .purchased, .converted, .renewed:
                if e.revenueContribution > 0 && !e.proceedsBeforeTax { lastPaid = (e.revenueContribution, e.proceedsContribution) }
            case .refunded:
                guard e.proceedsBeforeTax, e.store != .stripe, let paid = lastPaid else { continue }
                ordered[i].proceedsContribution = paid.proceeds * e.revenueContribution / paid.revenue
                ordered[i].proceedsBeforeTax = false
            default: break
            }
        }
    }
}
