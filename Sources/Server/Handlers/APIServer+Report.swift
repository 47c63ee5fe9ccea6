extension APIServer {
    /// `GET /v1/experiments/{id}/report`: 404 for an unknown experiment; 501 until the Reporting target lands.
    func report(id: String) throws -> HandlerOutcome {
        guard snapshots.snapshot.experimentsByID[id] != nil else {
            throw APIError(.notFound, code: "experiment_not_found", "no experiment '\(id)'", field: "id")
        }
        throw APIError(.notImplemented, code: "not_implemented", "reports are not served by this build yet; use 'abctl report'")
    }
}
