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
    /// The time reports are generated at (`ABCTL_NOW`); nil: the time of the request.
    let clock: Date?

    /// `GET /v1/experiments/{id}/report`: the report JSON of SPEC §8, computed from the store's
    /// per-user facts on request. 404 for an unknown experiment. Query parameters are the CLI's
    /// options (`ReportParameters`, checked by the same function); a bad one is 400, naming it.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let id = request.captures["id"] ?? ""
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            throw APIError(.notFound, code: "experiment_not_found", snapshot.catalog.unknownExperimentMessage(id), field: "id")
        }
        var reportOptions = ReportOptions(generatedAt: clock ?? Date(), products: snapshot.catalog.products)
        do {
            try ReportParameters.apply(try QueryString.pairs(request.http.query), to: &reportOptions, experiment: experiment, spell: \.name)
        } catch let invalid as ReportParameters.Invalid {
            throw APIError(.badRequest, code: "invalid_parameter", invalid.message, field: invalid.parameter)
        }
        let report: Report
        do {
            report = try ReportBuilder.report(store: store, experiment: experiment, options: reportOptions)
        } catch {
            log.write(level: .error, "report failed", ["experiment": .string(id), "error": .string(String(describing: error))])
            throw APIError(.unavailable, code: "store_unavailable", "the report could not be read from the event store; retry later")
        }
        return .response(HTTPResponse(status: 200, body: JSONWriter.bytes(JSONReportRenderer.value(report), reserving: 8192)))
    }
}
