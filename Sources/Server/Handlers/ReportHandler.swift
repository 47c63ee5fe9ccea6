import Events
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

/// `GET /v1/experiments/{id}/report`.
struct ReportHandler: Responder {
    let log: Log
    let snapshots: SnapshotHolder
    let store: any EventStore
    /// A fixed clock (`ABCTL_NOW`); nil: the time of the request, unless the store recorded where its
    /// data ends (`ReportInputs.asOf`, the rule `abctl report` reads by).
    let clock: Date?
    let workers: LowPriorityThreads

    /// `GET /v1/experiments/{id}/report`: the report JSON `abctl report` writes, computed from the store's
    /// per-user facts on request. 404 for an unknown experiment. Query parameters are the CLI's
    /// options (`ReportParameters`, checked by the same function); a bad one is 400, naming it.
    /// The report is computed on a report thread (`APIServer.reports`); 503 with `Retry-After` when
    /// the node already computes as many as it may.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            throw APIError(.notFound, code: "experiment_not_found", snapshot.catalog.unknownExperimentMessage(id), field: "id")
        }
        var reportOptions = ReportOptions(clock: clock, products: snapshot.catalog.products)
        reportOptions.readNamespaces(of: snapshot.catalog)
        do {
            try ReportParameters.apply(try QueryString.pairs(request.http.query), to: &reportOptions, experiment: experiment, spell: \.name)
        } catch let invalid as ReportParameters.Invalid {
            throw APIError(.badRequest, code: "invalid_parameter", invalid.message, field: invalid.parameter)
        }
        let store = self.store, options = reportOptions
        return .deferred { [workers, log] respond in
            let started = workers.run({ () -> HTTPResponse in
                do {
                    let report = try ReportBuilder.report(source: store, experiment: experiment, options: options)
                    return HTTPResponse(status: 200, body: JSONWriter.bytes(JSONReportRenderer.value(report), reserving: 8192))
                } catch {
                    log.write(level: .error, "report failed", ["experiment": .string(id), "error": .string(String(describing: error))])
                    return ErrorResponses.response(for: APIError(.unavailable, code: "store_unavailable", "the report could not be read from the event store; retry later"),
                                                   route: "/v1/experiments/{id}/report", log: log)
                }
            }, done: respond)
            if !started {
                var busy = APIError(.unavailable, code: "reports_busy",
                                    "this server is computing \(workers.width) reports already; retry in \(workers.retryAfterSeconds) s")
                busy.retryAfterSeconds = workers.retryAfterSeconds
                respond(ErrorResponses.response(for: busy, route: "/v1/experiments/{id}/report", log: log))
            }
        }
    }
}
