import Events
import Foundation
import ExperimentDefinitions
import HTTPTransport

/// `POST /v1/events`.
struct EventsHandler: Responder {
    let log: Log
    let snapshots: SnapshotHolder
    let store: any EventStore
    let metrics: Metrics
    /// The node's clock for the time checks (`ABCTL_NOW` where set); nil: the time of the request.
    let clock: Date?

    /// Problems listed in a 4xx answer's `rejections` at most; the count of lines is always complete.
    static let maxListedRejections = 100

    /// `POST /v1/events`: NDJSON or one JSON array of events (the shape `abctl ingest` reads).
    ///
    /// A batch is all or nothing: any rejected event fails the whole request (400 for JSON syntax,
    /// 422 for a well-formed but invalid event) and nothing is stored. Otherwise the events go to
    /// the store's group-commit writer with the connection suspended, and 200 is sent only after
    /// the transaction holding them has committed.
    ///
    /// `exposuresOnly` (an `app` key): any event type but `exposure` and `identified`
    /// refuses the whole batch with 403 and stores nothing, since revenue must come from verified
    /// webhooks or an `ingest` key.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let exposuresOnly = request.viaAppScope
        let snapshot = snapshots.snapshot
        let parser = snapshot.eventParser.receiving(at: Timestamp(clock ?? Date()), appKey: exposuresOnly)
        let parsed = request.body.withUnsafeBufferPointer { parser.parseBody($0) }
        if exposuresOnly {
            for (position, result) in parsed {
                guard case .success(let event) = result, event.type != .exposure, event.type != .identified else { continue }
                metrics.events(stored: 0, duplicate: 0, rejected: parsed.count)
                throw APIError(.forbidden, code: "app_scope",
                               "line \(position): an app key may post exposure and identified events only, not '\(event.type.name)'; nothing was stored. Purchases come from the store webhooks or a server's ingest key",
                               field: "type")
            }
        }
        if parsed.isEmpty {
            let trimmed = request.body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            guard trimmed.first == UInt8(ascii: "[") else {
                throw APIError.badRequest("empty_body", "no events in the body; send NDJSON (one event a line) or a JSON array")
            }
            return .response(Self.counts(AppendResult()))
        }
        var events: [Event] = []
        events.reserveCapacity(parsed.count)
        var rejections: [(line: Int, rejection: EventRejection)] = []
        var ignored: [(line: Int, rejection: EventRejection)] = []
        for (position, result) in parsed {
            switch result {
            case .success(let event): events.append(event)
            case .failure(let rejection) where rejection.ignored:
                ignored.append((position, rejection))
                if let kept = rejection.kept { events.append(kept) }
            case .failure(let rejection): rejections.append((position, rejection))
            }
        }
        if let first = rejections.first {
            metrics.events(stored: 0, duplicate: 0, rejected: rejections.count)
            let syntax = rejections.contains { $0.rejection.field == "json" }
            throw APIError(syntax ? .badRequest : .unprocessable, code: syntax ? "invalid_json" : "invalid_event",
                           Self.rejectionMessage(rejections, events: parsed.count),
                           field: first.rejection.field,
                           details: [("stored", .number(0)), ("duplicate", .number(0)), ("rejected", .number(Double(rejections.count))),
                                     ("rejections", .array(Self.listedRejections(rejections)))])
        }
        let store = self.store
        let metrics = self.metrics
        let batch = events
        let ignoredLines = ignored
        if batch.isEmpty {
            metrics.events(stored: 0, duplicate: 0, rejected: 0, ignored: ignored.count)
            return .response(Self.counts(AppendResult(), ignored: ignored))
        }
        return .deferred { respond in
            store.submit(batch) { result in
                switch result {
                case .success(let counts):
                    metrics.events(stored: counts.stored, duplicate: counts.duplicates, rejected: 0, ignored: ignoredLines.count)
                    respond(Self.counts(counts, ignored: ignoredLines))
                case .failure(let error):
                    respond(WebhookEventWriter.storeUnavailable(error, route: "/v1/events", log: log))
                }
            }
        }
    }

    /// Problems a rejected batch's message names at most; `rejections` lists more.
    static let maxProblemsInMessage = 20

    /// The message of a rejected batch: a summary (nothing stored, how many problems on how many
    /// of the events), then every problem as `line N: field: reason`, the first 20 of them and
    /// then how many more.
    static func rejectionMessage(_ rejections: [(line: Int, rejection: EventRejection)], events: Int) -> String {
        let problems = rejections.flatMap { r in r.rejection.problems.map { (line: r.line, problem: $0) } }
        let listed = problems.prefix(maxProblemsInMessage).map {
            "\($0.line == 0 ? "the body" : "line \($0.line)"): \($0.problem.field): \($0.problem.reason)"
        }
        let summary = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let rejected = rejections.count == 1 && rejections[0].line == 0 ? "the body"
            : "\(rejections.count) of \(events) \(events == 1 ? "event" : "events")"
        let more = problems.count > maxProblemsInMessage ? "; and \(problems.count - maxProblemsInMessage) more problems" : ""
        return "nothing was stored: \(summary) in \(rejected): " + listed.joined(separator: "; ") + more
    }

    /// `rejections` beside the error: one `{"line", "field", "message"}` per problem, every bad
    /// field of every rejected line, up to `maxListedRejections`.
    static func listedRejections(_ rejections: [(line: Int, rejection: EventRejection)]) -> [JSONValue] {
        rejections.lazy.flatMap { r in r.rejection.problems.lazy.map { (line: r.line, problem: $0) } }.prefix(maxListedRejections).map {
            .object([("line", .number(Double($0.line))), ("field", .string($0.problem.field)), ("message", .string($0.problem.reason))])
        }
    }

    /// `{"stored", "duplicate", "rejected", "ignored", "ignored_lines"}`: `ignored` counts lines naming
    /// an experiment the folder does not have (`unknown_experiment`), each listed in `ignored_lines`
    /// with the nearest id; an exposure among them is not stored, any other event is (in `stored`),
    /// without the experiment.
    static func counts(_ r: AppendResult, ignored: [(line: Int, rejection: EventRejection)] = []) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("stored", .number(Double(r.stored))), ("duplicate", .number(Double(r.duplicates))), ("rejected", .number(0)),
                                              ("ignored", .number(Double(ignored.count)))]
        if !ignored.isEmpty {
            members.append(("ignored_lines", .array(ignored.prefix(maxListedRejections).map {
                .object([("line", .number(Double($0.line))), ("code", .string(EventRejection.unknownExperiment)), ("message", .string(Self.ignoredMessage($0.rejection)))])
            })))
        }
        return .json(.object(members))
    }

    /// An ignored line's reason without its code, which `code` carries.
    static func ignoredMessage(_ rejection: EventRejection) -> String {
        let prefix = EventRejection.unknownExperiment + ": "
        return rejection.reason.hasPrefix(prefix) ? String(rejection.reason.dropFirst(prefix.count)) : rejection.reason
    }
}
