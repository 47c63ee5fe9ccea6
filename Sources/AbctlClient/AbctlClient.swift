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
    private let outbox: EventOutbox
    /// The last assign call that failed for want of a server, while `retryAfter` has not passed.
    private var lastAssignFailure: (error: ServerError, at: ContinuousClock.Instant)?
    private var tally = ClientDiagnostics()

    /// Opens (or creates) the cache and the event queue in `configuration.storageDirectory`, and
    /// starts sending events an earlier run left queued.
    public init(configuration: ClientConfiguration) throws {
        self.configuration = configuration
        try FileManager.default.createDirectory(at: configuration.storageDirectory, withIntermediateDirectories: true)
        connection = ServerConnection(baseURL: configuration.serverURL, apiKey: configuration.apiKey)
        copyWriter = OnDeviceCopyWriter(model: configuration.model, deadline: configuration.copyDeadline)
        cache = AssignmentCache(file: configuration.storageDirectory.appendingPathComponent("assignments.json"))
        outbox = try EventOutbox(directory: configuration.storageDirectory, connection: connection, configuration: configuration)
        if let problem = cache.loadProblem {
            tally.lastError = problem
            tally.lastErrorAt = Date()
        }
        let outbox = self.outbox
        Task { await outbox.resume() }
    }

    // MARK: Paywalls

    /// The paywall to show for this user and experiment: the server's, else the cached one, else
    /// the default. Never throws and never waits much longer than the assign deadline (plus the
    /// copy deadline when an AI line is written on the device).
    public func paywall(for query: PaywallQuery) async -> PaywallAnswer {
        if let failure = lastAssignFailure {
            let elapsed = ContinuousClock.now - failure.at
            if elapsed < configuration.retryAfter {
                return await fallbackAnswer(query, AnswerReason(.backingOff, "last assign call \(Self.seconds(elapsed)) ago: \(failure.error)"))
            }
        }
        let body = Array(query.body(hasModel: configuration.model != nil).serialized().utf8)
        do {
            let (status, reply) = try await connection.post("v1/assign", body: body, contentType: "application/json",
                                                             deadline: configuration.assignDeadline)
            guard status == 200 else { throw ServerConnection.statusError(status, reply) }
            let assignment = try Self.assignment(in: reply, experiment: query.experiment)
            lastAssignFailure = nil
            guard let variant = assignment.variant, let paywall = assignment.paywall else {
                try? forget(query)
                return await answer(query, variant: nil, paywall: defaultPaywall(query.experiment), source: .default,
                                    reason: AnswerReason(.notInExperiment, assignment.reason))
            }
            do {
                try cache.save(user: query.userID, experiment: query.experiment, variant: variant, paywall: paywall.resolved,
                               json: paywall.json, at: Date())
            } catch {
                note("saving the assignment cache failed: \(error)")
            }
            return await answer(query, variant: variant, paywall: paywall.resolved, source: .server, reason: AnswerReason(.assigned, assignment.reason))
        } catch let error as ServerError {
            // An error status below 500 is this request's fault, not an outage: no backing off for it.
            if case .status(let status, _, _) = error, status < 500 {} else { lastAssignFailure = (error, ContinuousClock.now) }
            note("assign failed: \(error)")
            return await fallbackAnswer(query, AnswerReason(error.answerCode, error.description))
        } catch {
            note("assign failed: \(error)")
            return await fallbackAnswer(query, AnswerReason(.badAnswer, String(describing: error)))
        }
    }

    /// The cached assignment for this user, else the default.
    private func fallbackAnswer(_ query: PaywallQuery, _ reason: AnswerReason) async -> PaywallAnswer {
        tally.paywallFallbacks[reason.code, default: 0] += 1
        if let entry = cache.entry(user: query.userID, experiment: query.experiment) {
            return await answer(query, variant: entry.variant, paywall: entry.paywall, source: .cache, reason: reason)
        }
        return await answer(query, variant: nil, paywall: defaultPaywall(query.experiment), source: .default, reason: reason)
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
    }

    private static func assignment(in bytes: [UInt8], experiment: String) throws -> ServerAssignment {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw ServerError.badAnswer("not JSON: \(error)") }
        guard let item = root["assignments"]?.array?.first(where: { $0["experiment"]?.string == experiment }) else {
            throw ServerError.badAnswer("no assignment for experiment '\(experiment)'")
        }
        let reason = item["reason"]?.string ?? ""
        guard let variant = item["variant"]?.string, let json = item["paywall"], !json.isNull else {
            return ServerAssignment(variant: nil, paywall: nil, reason: reason)
        }
        do {
            return ServerAssignment(variant: variant, paywall: (try ResolvedPaywall(reading: json), json), reason: reason)
        } catch {
            throw ServerError.badAnswer(error.description)
        }
    }

    // MARK: Events

    /// Queues the exposure of a paywall that was shown; false when there is nothing to log (the
    /// default paywall) or the queue was full. On return the event is on disk.
    @discardableResult
    public func logExposure(_ answer: PaywallAnswer, at timestamp: Date = Date()) async throws -> Bool {
        guard let event = ClientEvent.exposure(of: answer, at: timestamp) else { return false }
        return try await outbox.enqueue([event]) == 1
    }

    /// Queues a purchase-side event (`trial_started`, `purchased`, …); false when the queue was full.
    @discardableResult
    public func logPurchase(_ kind: ClientEvent.Kind, userID: UserID, productID: String? = nil, revenue: Double? = nil,
                            currency: String? = nil, at timestamp: Date = Date()) async throws -> Bool {
        let event = ClientEvent(kind: kind, userID: userID, timestamp: timestamp, revenue: revenue, currency: currency, productID: productID)
        return try await outbox.enqueue([event]) == 1
    }

    /// Queues events with one fsync for all; returns how many fit in the queue.
    @discardableResult
    public func log(_ events: [ClientEvent]) async throws -> Int {
        try await outbox.enqueue(events)
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
        let recovery = await outbox.recovery
        d.queueTornBytes = recovery.tornBytes
        d.queueCorruptRecords = recovery.corruptRecords
        if let sendError = await outbox.lastError, sendError.at >= (d.lastErrorAt ?? .distantPast) {
            d.lastError = sendError.message
            d.lastErrorAt = sendError.at
        }
        return d
    }

    private func note(_ message: String) {
        tally.lastError = message
        tally.lastErrorAt = Date()
    }

    private static func seconds(_ d: Duration) -> String {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return String(format: "%.1f s", s)
    }
}
