import ExperimentDefinitions
import Foundation
import HTTPTransport
import Reporting

extension APIServer {
    /// `GET /v1/experiments/{id}/report`: the report JSON of SPEC §8, computed from the store's
    /// per-user facts on request. 404 for an unknown experiment. Query parameters as the CLI's
    /// options: `since`, `until` (RFC 3339), `alpha`, `by` (repeatable, or comma-separated) and
    /// `min_segment_users`; any other is 400, naming it.
    func report(id: String, query: String?) throws -> HandlerOutcome {
        guard let experiment = snapshots.snapshot.experimentsByID[id] else {
            throw APIError(.notFound, code: "experiment_not_found", "no experiment '\(id)'", field: "id")
        }
        var reportOptions = ReportOptions(generatedAt: options.reportClock ?? Date(), products: snapshots.snapshot.catalog.products)
        for (name, value) in try Self.queryParameters(query) {
            func bad(_ message: String) -> APIError { APIError(.badRequest, code: "invalid_parameter", message, field: name) }
            switch name {
            case "since", "until":
                guard let date = RFC3339.parse(value) else { throw bad("'\(name)' must be an RFC 3339 time, got '\(value)'") }
                if name == "since" { reportOptions.since = date } else { reportOptions.until = date }
            case "alpha":
                guard let alpha = Double(value), alpha > 0, alpha < 0.5 else { throw bad("'alpha' must be a number between 0 and 0.5") }
                reportOptions.alpha = alpha
            case "by":
                for dimension in value.split(separator: ",").map(String.init) {
                    guard experiment.segmentDimensions.contains(dimension) else {
                        throw bad("'\(id)' has no segment '\(dimension)'; it has: \(experiment.segmentDimensions.joined(separator: ", "))")
                    }
                    if !reportOptions.segments.contains(dimension) { reportOptions.segments.append(dimension) }
                }
            case "min_segment_users":
                guard let n = Int(value), n >= 1 else { throw bad("'min_segment_users' must be a whole number of at least 1") }
                reportOptions.minSegmentUsers = n
            default:
                throw bad("unknown query parameter '\(name)'; the report takes since, until, alpha, by and min_segment_users")
            }
        }
        if let since = reportOptions.since, let until = reportOptions.until, since >= until {
            throw APIError(.badRequest, code: "invalid_parameter", "'since' must be before 'until'", field: "since")
        }
        let report: Report
        do {
            report = try ReportBuilder.report(store: backend.store, experiment: experiment, options: reportOptions)
        } catch {
            Log.shared.write(level: .error, "report failed", ["experiment": .string(id), "error": .string(String(describing: error))])
            throw APIError(.unavailable, code: "store_unavailable", "the report could not be read from the event store; retry later")
        }
        return .response(HTTPResponse(status: 200, body: JSONWriter.bytes(JSONReportRenderer.value(report), reserving: 8192)))
    }

    /// `a=1&b=2` as (name, value) pairs, percent-decoded (`+` is a space); 400 when malformed.
    static func queryParameters(_ query: String?) throws -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        return try query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let plus = { (s: Substring) in Substring(s.replacingOccurrences(of: "+", with: " ")) }
            guard let name = Router.percentDecode(plus(parts[0])), !name.isEmpty,
                  let value = Router.percentDecode(plus(parts.count > 1 ? parts[1] : "")) else {
                throw APIError(.badRequest, code: "invalid_parameter", "malformed query string", field: "query")
            }
            return (name, value)
        }
    }
}
