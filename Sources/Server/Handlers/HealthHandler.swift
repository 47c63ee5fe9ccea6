import ExperimentDefinitions
import HTTPTransport

/// `GET /healthz`: 200 while serving, 503 while draining, with the last refused reload.
struct HealthHandler: Responder {
    let snapshots: SnapshotHolder
    let metrics: Metrics
    let status: ServerStatus

    func respond(to request: APIRequest) -> HandlerOutcome {
        let snapshot = snapshots.snapshot
        let draining = status.isDraining
        let body: JSONValue = .object([
            ("status", .string(draining ? "draining" : "ok")),
            ("experiments", .number(Double(snapshot.catalog.experiments.count))),
            ("loaded_at", .string(RFC3339.format(snapshot.loadedAt))),
            ("reloads", .number(Double(metrics.reloads.succeeded))),
            ("uptime_seconds", .number(status.uptimeSeconds.rounded())),
            ("last_reload_error", status.lastReloadError ?? .null),
        ])
        return .response(.json(body, status: draining ? 503 : 200))
    }
}

/// `GET /metrics`: Prometheus text.
struct MetricsHandler: Responder {
    let snapshots: SnapshotHolder
    let metrics: Metrics
    let connections: ConnectionStats
    let safeguards: SafeguardService
    let consoleRefresher: ConsoleRefresher
    let status: ServerStatus

    func respond(to request: APIRequest) -> HandlerOutcome {
        let snapshot = snapshots.snapshot
        let text = metrics.render(gauges: [
            ("abctl_experiments_loaded", "Experiments in the current snapshot.", Double(snapshot.catalog.experiments.count)),
            ("abctl_experiments_loaded_timestamp_seconds", "When the current snapshot was loaded.", snapshot.loadedAt.timeIntervalSince1970.rounded()),
            ("abctl_uptime_seconds", "Seconds since the server started.", status.uptimeSeconds.rounded()),
        ])
        return .response(.text(text + connections.render() + safeguards.metricsText() + consoleRefresher.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
    }
}
