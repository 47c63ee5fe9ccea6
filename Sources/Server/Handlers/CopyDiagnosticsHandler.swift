import ExperimentDefinitions
import CopyGeneration
import HTTPTransport
import PaywallCopy

/// `GET /v1/diagnostics/copy`.
struct CopyDiagnosticsHandler: Responder {
    let generator: ServerCopyGenerator?
    let settings: CopyGenerationOptions?

    /// `GET /v1/diagnostics/copy`: how server-side copy generation is going: lines generated,
    /// cache hits, fallbacks by reason, and the latest failures (newest first).
    ///
    /// Without `--llm-url` the answer has the same shape, with `enabled: false` and zeros.
    func respond(to request: APIRequest) -> HandlerOutcome {
        let counts = generator?.counts ?? ServerCopyGenerator.Counts()
        let failures = generator?.recentFailures ?? []
        let fallbacks: [(String, JSONValue)] = ServerCopyGenerator.fallbackReasons.map {
            ($0.rawValue, .number(Double(counts.fallbacks[$0] ?? 0)))
        }
        let body: JSONValue = .object([
            ("enabled", .bool(generator != nil)),
            ("model", settings.map { .string($0.model) } ?? .null),
            ("deadline_ms", settings.map { .number(($0.deadline / .milliseconds(1)).rounded()) } ?? .null),
            ("counts", .object([
                ("generated", .number(Double(counts.generated))),
                ("cache_hits", .number(Double(counts.cacheHits))),
                ("fallbacks", .object(fallbacks)),
            ])),
            ("recent_failures", .array(failures.map { failure in
                .object([
                    ("at", .string(RFC3339.format(failure.at))),
                    ("experiment", .string(failure.experiment)),
                    ("variant", .string(failure.variant)),
                    ("reason", .string(failure.reason.rawValue)),
                    ("detail", .string(failure.detail)),
                ])
            })),
        ])
        return .response(.json(body))
    }
}
