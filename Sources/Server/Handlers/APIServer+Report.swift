import Foundation
import Reporting

extension APIServer {
    /// `GET /v1/experiments/{id}/report`: the report JSON of SPEC §8, computed from the store's
    /// per-user facts on request. 404 for an unknown experiment.
    func report(id: String) throws -> HandlerOutcome {
        let snapshot = snapshots.snapshot
        guard let experiment = snapshot.experimentsByID[id] else {
            throw APIError(.notFound, code: "experiment_not_found", "no experiment '\(id)'", field: "id")
        }
        let report: Report
        do {
            report = try ReportBuilder.report(store: backend.store, experiment: experiment, options: ReportOptions(generatedAt: options.reportClock ?? Date(), products: snapshot.catalog.products))
        } catch {
            Log.shared.write(level: .error, "report failed", ["experiment": .string(id), "error": .string(String(describing: error))])
            throw APIError(.unavailable, code: "store_unavailable", "the report could not be read from the event store; retry later")
        }
        return .response(HTTPResponse(status: 200, body: JSONWriter.bytes(JSONReportRenderer.value(report), reserving: 8192)))
    }
}
