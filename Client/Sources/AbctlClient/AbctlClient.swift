import ExperimentDefinitions
import Foundation

/// The Swift library an app adds to show the right paywall, always.
///
/// `paywall(for:)` asks `POST /v1/assign` within a deadline and answers from the last assignment
/// kept on the device, or from the paywall bundled with the app, when the server is slow, down or
/// unreachable; each answer says where it came from and why. AI copy is written by the app's own
/// model under the recipe's guard, with the fallback and its reason otherwise. Exposures and
/// purchases go to a queue on disk and reach `POST /v1/events` once, whatever happens to the app
/// or the network in between.
public actor AbctlClient {
    private let configuration: ClientConfiguration
    private let connection: ServerConnection
    private let copyWriter: OnDeviceCopyWriter
    private var cache: AssignmentCache
    private var placementCache: PlacementCache
    private var storeAccounts: StoreAccounts
    private var currentUser: CurrentUser
    private let outbox: EventOutbox
    private let serverClock: ServerClock
    /// The last assign call that failed for want of a server, while `retryAfter` has not passed.
    private var lastAssignFailure: (error: ServerError, at: ContinuousClock.Instant)?
    private var tally = ClientDiagnostics()

    /// Opens (or creates) the cache and the event queue in `configuration.storageDirectory`, and
    /// starts sending events an earlier run left queued.
    public init(configuration: ClientConfiguration) throws {
        self.configuration = configuration
        try FileManager.default.createDirectory(at: configuration.storageDirectory, withIntermediateDirectories: true)
        let serverClock = ServerClock(deviceNow: configuration.clock)
        self.serverClock = serverClock
        let connection = ServerConnection(baseURL: configuration.serverURL, apiKey: configuration.apiKey, clock: serverClock)
        self.connection = connection
        copyWriter = OnDeviceCopyWriter(model: configuration.model, deadline: configuration.copyDeadline)
        cache = AssignmentCache(file: configuration.storageDirectory.appendingPathComponent("assignments.json"))
        let placementCache = PlacementCache(file: configuration.storageDirectory.appendingPathComponent("placements.json"))
        self.placementCache = placementCache
        let storeAccounts = StoreAccounts(file: configuration.storageDirectory.appendingPathComponent("store_accounts.json"))
        self.storeAccounts = storeAccounts
        let currentUser = try CurrentUser(file: configuration.storageDirectory.appendingPathComponent("current_user.json"))
        self.currentUser = currentUser
        let sendTimeout = configuration.sendTimeout
        outbox = try EventOutbox(directory: configuration.storageDirectory, configuration: configuration, serverClock: serverClock,
                                 probeClock: { _ = try? await connection.get("healthz", deadline: sendTimeout) }) { body in
            try await connection.post("v1/events", body: body, contentType: "application/x-ndjson", deadline: sendTimeout)
        }
        if let problem = cache.loadProblem ?? placementCache.loadProblem ?? storeAccounts.loadProblem ?? currentUser.loadProblem {
            tally.lastError = problem
            tally.lastErrorAt = configuration.clock()
        }
        let outbox = self.outbox
        Task { await outbox.resume() }
    }

    // MARK: Paywalls

    /// The paywall to show for this user and experiment: the server's, else the cached one, else
    /// the default. Never throws and never waits much longer than the assign deadline (plus the
    /// copy deadline when an AI line is written on the device).
    public func paywall(for query: PaywallQuery) async -> PaywallAnswer {
        if let reason = backingOff() { return await fallbackAnswer(query, reason) }
        do {
            let reply = try await postAssign(query.body(hasModel: configuration.model != nil))
            let assignment = try Self.assignment(in: reply, experiment: query.experiment)
            lastAssignFailure = nil
            if Self.expiringReasons.contains(assignment.reason) { expireCached(experiment: query.experiment, keeping: nil) }
            guard let paywall = assignment.paywall else {
                try? forget(query)
                return await answer(query, variant: nil, paywall: defaultPaywall(query.experiment), source: .default,
                                    reason: AnswerReason(.notInExperiment, assignment.reason))
            }
            // A paywall with no arm (a shipped winner, the control's under a safeguard stop or for a
            // held-out user) is the server's answer too: shown and kept, but it logs no exposure.
            do {
                try cache.save(user: query.userID, experiment: query.experiment, variant: assignment.variant, paywall: paywall.resolved,
                               json: paywall.json, reason: assignment.reason, at: configuration.clock())
            } catch {
                note("saving the assignment cache failed: \(error)")
            }
            var answer = await answer(query, variant: assignment.variant, paywall: paywall.resolved, source: .server,
                                      reason: AnswerReason(assignment.variant != nil ? .assigned : .notInExperiment, assignment.reason))
            answer.allocationPeriod = assignment.allocationPeriod
            return answer
        } catch {
            return await fallbackAnswer(query, failedAssign(error))
        }
    }

    /// Why to answer from the cache or the default without calling: the last assign call failed
    /// less than `retryAfter` ago. Nil when a call may be made.
    private func backingOff() -> AnswerReason? {
        guard let failure = lastAssignFailure else { return nil }
        let elapsed = ContinuousClock.now - failure.at
        guard elapsed < configuration.retryAfter else { return nil }
        return AnswerReason(.backingOff, "last assign call \(Self.seconds(elapsed)) ago: \(failure.error)")
    }

    /// `POST /v1/assign` with `body`: the bytes of a 200 answer, else a `ServerError`.
    private func postAssign(_ body: JSONValue) async throws -> [UInt8] {
        let (status, reply) = try await connection.post("v1/assign", body: Array(body.serialized().utf8), contentType: "application/json",
                                                         deadline: configuration.assignDeadline)
        guard status == 200 else { throw ServerConnection.statusError(status, reply) }
        return reply
    }

    /// The server's reasons that end every kept arm of the experiment at once.
    static let expiringReasons: Set<String> = ["not_running", "shipped", "safeguard"]

    /// Forgets every cached answer naming `experiment` in both caches, but the placement answer
    /// just saved.
    private func expireCached(experiment: String, keeping: (user: String, placement: String)?) {
        do {
            try cache.expire(experiment: experiment, keeping: nil)
            try placementCache.expire(experiment: experiment, keeping: keeping)
        } catch {
            note("expiring cached answers of '\(experiment)' failed: \(error)")
        }
    }

    /// The answer reason for a failed assign call; an outage (not a status below 500, which is this
    /// request's fault) starts the back-off.
    private func failedAssign(_ error: any Error) -> AnswerReason {
        if case .status(let status, let code, let message)? = error as? ServerError, status == 401 || status == 403 {
            let body = Array(JSONValue.object([("error", .object([("code", code.map(JSONValue.string) ?? .null),
                                                                   ("message", message.map(JSONValue.string) ?? .null)]))]).serialized().utf8)
            if let failure = AuthFailure.from(status: status, body: body, path: "v1/assign", routeScope: configuration.isAppKey ? "app" : "assign",
                                              at: configuration.clock()) {
                tally.authFailures += 1
                tally.lastAuthFailure = failure
                configuration.logger(.error, failure.description)
            }
        }
        note("assign failed: \(error)")
        guard let error = error as? ServerError else { return AnswerReason(.badAnswer, String(describing: error)) }
        if case .status(let status, _, _) = error, status < 500 {} else { lastAssignFailure = (error, ContinuousClock.now) }
        return AnswerReason(error.answerCode, error.description)
    }

    /// What to show at a placement for this user: the server's answer, else the cached answer
    /// for this user and placement, else the placement's bundled default. Never throws and never
    /// waits much longer than the assign deadline (plus the copy deadline for an AI line).
    public func paywall(for query: PlacementQuery) async -> PlacementAnswer {
        if let reason = backingOff() { return await fallbackAnswer(query, reason) }
        do {
            let reply = try await postAssign(query.body(hasModel: configuration.model != nil))
            let json: JSONValue
            do { json = try JSONValue.parse(reply) } catch { throw ServerError.badAnswer("not JSON: \(error)") }
            var answer = try Self.placementAnswer(json, query: query, source: .server)
            lastAssignFailure = nil
            do { try placementCache.save(json, user: query.userID.text, placement: query.placement, at: configuration.clock()) } catch {
                note("saving the placement cache failed: \(error)")
            }
            if let experiment = answer.experiment, let reason = json["reason"]?.string, Self.expiringReasons.contains(reason) {
                expireCached(experiment: experiment, keeping: (query.userID.text, query.placement))
            }
            answer.copy = await shownCopy(answer.paywall, query.variables)
            tally.answersBySource[.server, default: 0] += 1
            return answer
        } catch {
            return await fallbackAnswer(query, failedAssign(error))
        }
    }

    /// The cached answer for this user and placement, else the placement's bundled default.
    private func fallbackAnswer(_ query: PlacementQuery, _ reason: AnswerReason) async -> PlacementAnswer {
        tally.paywallFallbacks[reason.code, default: 0] += 1
        var answer: PlacementAnswer
        if let cached = placementCache.answer(user: query.userID.text, placement: query.placement, now: configuration.clock(), lifetime: lifetime),
           var fromCache = try? Self.placementAnswer(cached, query: query, source: .cache) {
            fromCache.reason = reason
            answer = fromCache
        } else {
            let paywall: ResolvedPaywall? = configuration.placementDefaults[query.placement] ?? configuration.defaultPaywall
            answer = PlacementAnswer(userID: query.userID, placement: query.placement, showPaywall: paywall != nil, paywall: paywall,
                                     copy: nil, audience: nil, experiment: nil, variant: nil, inExperiment: false, holdouts: [],
                                     attributes: query.attributes, source: .default, reason: reason)
        }
        answer.copy = await shownCopy(answer.paywall, query.variables)
        tally.answersBySource[answer.source, default: 0] += 1
        return answer
    }

    /// A `/v1/assign` placement answer (from the server or the cache), its copy not yet written.
    private static func placementAnswer(_ json: JSONValue, query: PlacementQuery, source: PaywallSource) throws -> PlacementAnswer {
        guard let show = json["show_paywall"]?.bool else { throw ServerError.badAnswer("no show_paywall in the placement answer") }
        var paywall: ResolvedPaywall?
        if show, let p = json["paywall"], !p.isNull {
            do { paywall = try ResolvedPaywall(reading: p) } catch { throw ServerError.badAnswer(error.description) }
        }
        let holdouts: [(experiment: String, variant: String)] = (json["holdouts"]?.array ?? []).compactMap { h in
            guard let e = h["experiment"]?.string, let v = h["variant"]?.string else { return nil }
            return (e, v)
        }
        let reason = json["reason"]?.string ?? ""
        let inExperiment = json["in_experiment"]?.bool ?? false
        return PlacementAnswer(userID: query.userID, placement: query.placement, showPaywall: paywall != nil, paywall: paywall, copy: nil,
                               audience: json["audience"]?.string, experiment: json["experiment"]?.string, variant: json["variant"]?.string,
                               inExperiment: inExperiment, holdouts: holdouts, attributes: query.attributes, source: source,
                               reason: AnswerReason(inExperiment ? .assigned : .notInExperiment, reason),
                               allocationPeriod: json["allocation_period"]?.string.flatMap(RFC3339.parse))
    }

    /// The line of a paywall: as given, or written on the device from the recipe.
    private func shownCopy(_ paywall: ResolvedPaywall?, _ variables: [String: String]) async -> ShownCopy? {
        guard let paywall else { return nil }
        switch paywall.copy {
        case .text(let text, let source, let fallbackReason):
            return ShownCopy(text: text, source: source, fallbackReason: fallbackReason)
        case .recipe(let recipe):
            let copy = await copyWriter.write(recipe, userName: variables["userName"])
            if copy.source == .onDevice { tally.copyGenerated += 1 }
            if let reason = copy.fallbackReason { tally.copyFallbacks[reason, default: 0] += 1 }
            return copy
        }
    }

    /// The cached assignment for this user, else the default.
    private func fallbackAnswer(_ query: PaywallQuery, _ reason: AnswerReason) async -> PaywallAnswer {
        tally.paywallFallbacks[reason.code, default: 0] += 1
        if let entry = cache.entry(user: query.userID, experiment: query.experiment, now: configuration.clock(), lifetime: lifetime) {
            return await answer(query, variant: entry.variant, paywall: entry.paywall, source: .cache, reason: reason)
        }
        return await answer(query, variant: nil, paywall: defaultPaywall(query.experiment), source: .default, reason: reason)
    }

    /// How long a cached answer stands in for the server's.
    private var lifetime: TimeInterval {
        Double(configuration.cacheLifetime.components.seconds) + Double(configuration.cacheLifetime.components.attoseconds) / 1e18
    }

    private func defaultPaywall(_ experiment: String) -> ResolvedPaywall {
        configuration.defaultPaywalls[experiment] ?? configuration.defaultPaywall
    }

    private func forget(_ query: PaywallQuery) throws {
        try cache.remove(user: query.userID, experiment: query.experiment)
    }

    /// The answer with its line: as given, or written on the device from the recipe.
    private func answer(_ query: PaywallQuery, variant: String?, paywall: ResolvedPaywall, source: PaywallSource,
                        reason: AnswerReason) async -> PaywallAnswer {
        tally.answersBySource[source, default: 0] += 1
        let copy: ShownCopy
        switch paywall.copy {
        case .text(let text, let copySource, let fallbackReason):
            copy = ShownCopy(text: text, source: copySource, fallbackReason: fallbackReason)
        case .recipe(let recipe):
            copy = await copyWriter.write(recipe, userName: query.variables["userName"])
            if copy.source == .onDevice { tally.copyGenerated += 1 }
        }
        if let fallbackReason = copy.fallbackReason {
            tally.copyFallbacks[fallbackReason, default: 0] += 1
            // A device without a model is a setting, not an error worth the last-error slot.
            if fallbackReason != .noModel, let detail = copy.detail { note("AI copy fell back (\(fallbackReason.rawValue)): \(detail)") }
        }
        return PaywallAnswer(userID: query.userID, experiment: query.experiment, variant: variant, paywall: paywall, copy: copy,
                             source: source, reason: reason)
    }

    /// One assignment of a `/v1/assign` answer.
    private struct ServerAssignment {
        var variant: String?
        var paywall: (resolved: ResolvedPaywall, json: JSONValue)?
        var reason: String
        var allocationPeriod: Date?
    }

    private static func assignment(in bytes: [UInt8], experiment: String) throws -> ServerAssignment {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw ServerError.badAnswer("not JSON: \(error)") }
        guard let item = root["assignments"]?.array?.first(where: { $0["experiment"]?.string == experiment }) else {
            throw ServerError.badAnswer("no assignment for experiment '\(experiment)'")
        }
        let reason = item["reason"]?.string ?? ""
        let variant = item["variant"]?.string
        let period = item["allocation_period"]?.string.flatMap(RFC3339.parse)
        guard let json = item["paywall"], !json.isNull else { return ServerAssignment(variant: variant, paywall: nil, reason: reason, allocationPeriod: period) }
        do {
            return ServerAssignment(variant: variant, paywall: (try ResolvedPaywall(reading: json), json), reason: reason, allocationPeriod: period)
        } catch {
            throw ServerError.badAnswer(error.description)
        }
    }

    // MARK: People

    /// The id to ask and log under now: an anonymous id made on the first start and kept across
    /// restarts, the known id after `logIn`, a new anonymous id after `logOut`. Queries and events
    /// name their user themselves; pass this one.
    public var userID: UserID { currentUser.id }

    /// Whether `userID` is a known id (from `logIn`).
    public var isLoggedIn: Bool { currentUser.isKnown }

    /// The user signed in as `identity` (the app's account id). From an anonymous id: queues an
    /// `identified` event from it to `identity` (event id `identify:IDENTITY`, as
    /// `POST /v1/identify` stores it, allowed through an `app` key) behind everything queued
    /// before, copies its cached answers to `identity`, and from then on `userID` is `identity`:
    /// the server answers it with the anonymous id's arms (the sticky record is the person's).
    /// Queued events keep the id they were logged under and are all sent. From another known id
    /// it only switches (two known ids never merge). On return the event is on disk; it is sent
    /// in the background (`flush()` sends it now).
    public func logIn(_ identity: UserID) async throws {
        let old = currentUser.id
        guard identity != old else {
            if !currentUser.isKnown { try currentUser.become(identity, known: true) }
            return
        }
        if !currentUser.isKnown {
            guard try await outbox.enqueue([.identified(user: old, identity: identity, at: configuration.clock())]) == 1 else {
                throw LogInError.queueFull
            }
            do {
                try cache.carry(from: old, to: identity)
                try placementCache.carry(from: old.text, to: identity.text)
            } catch {
                note("carrying cached answers to '\(identity)' failed: \(error)")
            }
        }
        try currentUser.become(identity, known: true)
    }

    /// The user signed out: `userID` becomes a new anonymous id (queued events keep theirs).
    public func logOut() throws {
        try currentUser.become(UserID(UUID().uuidString.lowercased()), known: false)
    }

    // MARK: Store identities

    /// The id to hand the stores for this user: a lowercase UUID made the first time and
    /// kept in `storageDirectory`, the same after every restart. Pass it as StoreKit's
    /// `appAccountToken` (`UUID(uuidString:)`) and as Play Billing's `setObfuscatedAccountId`;
    /// every exposure the client logs for the user carries it, so the App Store and Google Play
    /// webhooks land the user's purchases in the user's arm.
    public func storeAccountID(for userID: UserID) throws -> String {
        try storeAccounts.id(for: userID)
    }

    /// Exposures get their user's store account id (one made now if the user has none).
    private func withStoreAccounts(_ events: [ClientEvent]) throws -> [ClientEvent] {
        var events = events
        for i in events.indices where events[i].kind == .exposure && events[i].storeAccountID == nil {
            events[i].storeAccountID = try storeAccounts.id(for: events[i].userID)
        }
        return events
    }

    // MARK: Events

    /// Queues the exposure of a paywall that was shown; false when there is nothing to log (the
    /// default paywall) or the queue was full. On return the event is on disk.
    @discardableResult
    public func logExposure(_ answer: PaywallAnswer, at timestamp: Date? = nil) async throws -> Bool {
        guard let event = ClientEvent.exposure(of: answer, at: timestamp ?? configuration.clock()) else { return false }
        return try await outbox.enqueue(withStoreAccounts([event])) == 1
    }

    /// Queues a purchase-side event (`trial_started`, `purchased`, …); false when the queue was full.
    /// With an `app` key (`isAppKey`) it throws `AppKeyRefusal` at once and queues nothing:
    /// revenue comes from the store webhooks, never from a device.
    @discardableResult
    public func logPurchase(_ kind: ClientEvent.Kind, userID: UserID, productID: String? = nil, revenue: Double? = nil,
                            currency: String? = nil, at timestamp: Date? = nil) async throws -> Bool {
        let event = ClientEvent(kind: kind, userID: userID, timestamp: timestamp ?? configuration.clock(), revenue: revenue, currency: currency,
                                productID: productID)
        try refuseThroughAppKey([event])
        return try await outbox.enqueue([event]) == 1
    }

    /// Queues the exposures of a placement's answer (the experiment's when the user is in it, and
    /// each holdout arm), with the placement and attributes; returns how many were queued.
    @discardableResult
    public func logExposure(_ answer: PlacementAnswer, at timestamp: Date? = nil) async throws -> Int {
        let events = ClientEvent.exposures(of: answer, at: timestamp ?? configuration.clock())
        return events.isEmpty ? 0 : try await outbox.enqueue(withStoreAccounts(events))
    }

    /// Queues events with one fsync for all; returns how many fit in the queue. With an `app` key,
    /// a batch holding anything but exposures throws `AppKeyRefusal` and queues nothing.
    @discardableResult
    public func log(_ events: [ClientEvent]) async throws -> Int {
        try refuseThroughAppKey(events)
        return try await outbox.enqueue(withStoreAccounts(events))
    }

    private func refuseThroughAppKey(_ events: [ClientEvent]) throws {
        // An app key posts exposures and identifies.
        func refused(_ e: ClientEvent) -> Bool { e.kind != .exposure && e.kind != .identified }
        guard configuration.isAppKey, let event = events.first(where: refused) else { return }
        tally.purchasesRefused += events.filter(refused).count
        note("refused '\(event.kind.name)': an app key posts exposures only; purchases come from the store webhooks")
        throw AppKeyRefusal(kind: event.kind)
    }

    /// Sends every queued event now; false when a send failed (they stay queued and are retried).
    public func flush() async -> Bool {
        await outbox.flush()
    }

    /// Stops sending in the background; queued events stay on disk for the next start.
    public func close() async {
        await outbox.close()
    }

    // MARK: Diagnostics

    public func diagnostics() async -> ClientDiagnostics {
        var d = tally
        let counts = await outbox.counts
        d.queueDepth = await outbox.depth
        d.eventsQueued = counts.queued
        d.eventsStored = counts.stored
        d.eventsDuplicate = counts.duplicates
        d.eventsDroppedQueueFull = counts.droppedQueueFull
        d.eventsRejected = counts.rejected
        d.sendFailures = counts.failedSends
        d.eventsRefused = counts.refused
        let recovery = await outbox.recovery
        d.queueTornBytes = recovery.tornBytes
        d.queueCorruptRecords = recovery.corruptRecords
        if let sendError = await outbox.lastError, sendError.at >= (d.lastErrorAt ?? .distantPast) {
            d.lastError = sendError.message
            d.lastErrorAt = sendError.at
        }
        d.authFailures += await outbox.authFailures
        if let sendFailure = await outbox.lastAuthFailure, sendFailure.at >= (d.lastAuthFailure?.at ?? .distantPast) {
            d.lastAuthFailure = sendFailure
        }
        d.clockOffsetSeconds = serverClock.offset
        d.timestampsCorrected = counts.timestampsCorrected
        return d
    }

    private func note(_ message: String) {
        tally.lastError = message
        tally.lastErrorAt = configuration.clock()
    }

    private static func seconds(_ d: Duration) -> String {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return String(format: "%.1f s", s)
    }
}
