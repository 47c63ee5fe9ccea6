// swift-tools-version:6.0
import PackageDescription

// Layers (see README "Architecture"): lower targets never import higher ones.
let package = Package(
    name: "abctl",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "abctl", targets: ["abctl"]),
        .executable(name: "assign-bench", targets: ["AssignBenchmark"]),
        .executable(name: "handler-bench", targets: ["HandlerBenchmark"]),
        // What an app adds: always a paywall, AI copy on the device, events that are never lost.
        .library(name: "AbctlClient", targets: ["AbctlClient"]),
        .executable(name: "client-bench", targets: ["ClientBenchmark"]),
        .executable(name: "webhook-bench", targets: ["WebhookBenchmark"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // The file format: JSON with positions, the model, validation, products, the copy guard.
        .target(name: "ExperimentDefinitions"),
        // FNV-1a bucketing, targeting, GrowthBook conditions, the Assigner.
        .target(name: "Assignment", dependencies: ["ExperimentDefinitions"]),
        // Paywall resolution for a request: discount text, filled templates, AI recipes with briefs.
        .target(name: "PaywallCopy", dependencies: ["ExperimentDefinitions"]),
        // The experiments as a GrowthBook SDK payload (abctl export, GET /api/features/{clientKey}).
        .target(name: "GrowthBookPayload", dependencies: ["ExperimentDefinitions", "PaywallCopy"]),
        // AI lines written on the server (OpenAI-compatible client, guard, retry, deadline, cache hook).
        // Apart from PaywallCopy, which the app-side AbctlClient uses, because it needs Mutex and Dispatch threads.
        .target(name: "CopyGeneration", dependencies: ["ExperimentDefinitions", "PaywallCopy"]),
        // No storage: the event model, the NDJSON parser, per-user facts (FactsBuilder) and the
        // store protocols every consumer is written against.
        .target(name: "Events", dependencies: ["ExperimentDefinitions"]),
        // Those protocols over SQLite: one group-committing writer, facts kept current at ingest, readers.
        .target(name: "SQLiteStore", dependencies: ["CSQLite", "Events", "ExperimentDefinitions"]),
        // The same protocols over PostgreSQL through libpq, for several serve nodes on one database.
        .target(name: "PostgresStore", dependencies: ["CLibPQ", "Events", "ExperimentDefinitions"]),

        // Subcommands, options declared once (type, default, environment variable), help and exit codes.
        .target(name: "CommandLineKit", dependencies: ["ExperimentDefinitions"]),

        // Pure math for reports: distributions, tests, Bayesian, sequential, survival, power.
        .target(name: "Statistics"),

        // Synthetic users with known true rates, through the real assignment and store.
        .target(name: "Simulation", dependencies: ["Assignment", "Events", "ExperimentDefinitions", "PaywallCopy", "Statistics"]),

        // Facts + Statistics -> a Report value -> text, Markdown, HTML with inline SVG, JSON, CSV.
        .target(name: "Reporting", dependencies: ["Statistics", "Events", "ExperimentDefinitions"]),
        // Stores' webhooks (Stripe, Google Play): verified with OpenSSL, mapped onto events; no transport.
        .target(name: "Webhooks", dependencies: ["COpenSSL", "Events", "ExperimentDefinitions"]),
        // One safeguard evaluation: facts -> mature outcomes -> mSPRT -> stops written through the store protocol.
        .target(name: "Safeguards", dependencies: ["Statistics", "Events", "ExperimentDefinitions"]),
        // HTTP/1.1 over libmicrohttpd: connections, deadlines, limits, lingering closes; knows no route or JSON.
        .target(name: "HTTPTransport", dependencies: ["CMicroHTTPD"]),
        // The HTTP API on that transport: routing, JSON, auth, metrics, webhooks (see docs/Server.md).
        .target(name: "Server", dependencies: ["HTTPTransport", "COpenSSL", "ExperimentDefinitions", "PaywallCopy", "CopyGeneration", "Assignment", "Events", "Reporting", "GrowthBookPayload", "Webhooks", "Safeguards"]),

        .executableTarget(name: "abctl", dependencies: ["CommandLineKit", "ExperimentDefinitions", "Assignment", "PaywallCopy", "Events", "SQLiteStore", "PostgresStore", "Statistics", "Simulation", "Reporting", "Server", "HTTPTransport", "GrowthBookPayload", "Webhooks", "Safeguards"]),
        // Benchmark executables, in bench/ beside the scripts that build and run them (`make bench`).
        .executableTarget(name: "AssignBenchmark", dependencies: ["Assignment", "ExperimentDefinitions"], path: "bench/AssignBenchmark"),
        .executableTarget(name: "HandlerBenchmark", dependencies: ["Server", "HTTPTransport", "SQLiteStore"], path: "bench/HandlerBenchmark"),
        .executableTarget(name: "WebhookBenchmark", dependencies: ["Webhooks"], path: "bench/WebhookBenchmark"),
        // The app-side library: Foundation and the two pure model targets only (no C, no store).
        .target(name: "AbctlClient", dependencies: ["ExperimentDefinitions", "PaywallCopy"]),
        .executableTarget(name: "ClientBenchmark", dependencies: ["AbctlClient"], path: "bench/ClientBenchmark"),

        // Helpers shared by test targets (temporary stores, event builders, a fake chat endpoint).
        .target(name: "TestSupport", dependencies: ["Events", "SQLiteStore", "Statistics", "ExperimentDefinitions"], path: "Tests/TestSupport"),
        .testTarget(name: "ExperimentDefinitionsTests", dependencies: ["ExperimentDefinitions", "Assignment", "TestSupport"]),
        .testTarget(name: "AssignmentTests", dependencies: ["Assignment", "ExperimentDefinitions", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PaywallCopyTests", dependencies: ["PaywallCopy", "CopyGeneration", "ExperimentDefinitions", "Assignment", "TestSupport"]),
        .testTarget(name: "EventsTests", dependencies: ["Events", "ExperimentDefinitions", "TestSupport"]),
        .testTarget(name: "PostgresStoreTests", dependencies: ["PostgresStore", "Events", "ExperimentDefinitions", "SQLiteStore", "TestSupport"]),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore", "Events", "ExperimentDefinitions", "TestSupport"], exclude: ["Fixtures"]),
        // One suite over the store protocols, run against every store in StoreFactories.swift.
        .testTarget(name: "StoreConformanceTests", dependencies: ["Events", "SQLiteStore", "PostgresStore", "Reporting", "ExperimentDefinitions", "Assignment", "TestSupport"]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "ExperimentDefinitions", "Assignment", "Events", "SQLiteStore"], exclude: ["Fixtures"]),
        // Handlers in process (InProcess/InProcessServer.swift: a temporary store, a Server, its handle).
        .testTarget(name: "ServerTests", dependencies: ["Server", "HTTPTransport", "ExperimentDefinitions", "Events", "SQLiteStore", "PostgresStore", "TestSupport", "Webhooks"]),
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport"]),
        .testTarget(name: "WebhooksTests", dependencies: ["Webhooks", "Events", "ExperimentDefinitions"], resources: [.copy("Fixtures")]),
        // Runs the built abctl binary; `make test` builds it first and runs these in a `swift test` of their own.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "Events", "ExperimentDefinitions", "SQLiteStore"], exclude: ["Fixtures"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Assignment", "Events", "SQLiteStore", "ExperimentDefinitions", "Reporting", "Statistics"]),
        .testTarget(name: "AbctlClientTests", dependencies: ["AbctlClient", "TestSupport"], resources: [.copy("Fixtures")]),
        // A process of its own for AbctlClientTests to kill with events queued (Tests/ClientProbe).
        .executableTarget(name: "ClientProbe", dependencies: ["AbctlClient"], path: "Tests/ClientProbe"),
        .testTarget(name: "GrowthBookPayloadTests", dependencies: ["GrowthBookPayload", "Assignment", "ExperimentDefinitions"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SafeguardsTests", dependencies: ["Safeguards", "Events", "ExperimentDefinitions", "Statistics"]),
    ],
    swiftLanguageModes: [.v6]
)
