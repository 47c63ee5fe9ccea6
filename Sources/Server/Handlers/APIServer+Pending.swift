extension APIServer {
    func assign(_ request: HTTPRequest) throws -> HandlerOutcome {
        throw APIError(.notImplemented, code: "not_implemented", "assignment is not wired yet")
    }

    func events(_ request: HTTPRequest) throws -> HandlerOutcome {
        throw APIError(.notImplemented, code: "not_implemented", "the event store is not wired yet")
    }

    func revenueCat(_ request: HTTPRequest) throws -> HandlerOutcome {
        throw APIError(.notImplemented, code: "not_implemented", "the event store is not wired yet")
    }

    /// `GET /v1/experiments/{id}/report`: 404 for an unknown experiment; 501 until Reporting lands.
    func report(id: String) throws -> HandlerOutcome {
        guard snapshots.snapshot.catalog.experiment(id) != nil else {
            throw APIError(.notFound, code: "experiment_not_found", "no experiment '\(id)'", field: "id")
        }
        throw APIError(.notImplemented, code: "not_implemented", "reports are not available from this server yet; use 'abctl report'")
    }
}
