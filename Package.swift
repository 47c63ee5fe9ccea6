// swift-tools-version:6.0
import PackageDescription

// The pure-Swift targets an app needs (ExperimentDefinitions, PaywallCopy, AbctlClient) live in the
// package of Client/, which an app adds on its own; this package builds the same sources through it.
let client = "Client"
let definitions: Target.Dependency = .product(name: "ExperimentDefinitions", package: client)
let paywallCopy: Target.Dependency = .product(name: "PaywallCopy", package: client)
let abctlClient: Target.Dependency = .product(name: "AbctlClient", package: client)

// The targets that carry the tests' CPU (the calibration suites' simulations, the end-to-end suites'
// debug binary) are optimized in debug builds too: they save more in every test run of a fresh clone
// than they cost to compile once (docs/Architecture.md).
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

// Layers (see README "Architecture"): lower targets never import higher ones.
let package = Package(
    name: "abctl",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "abctl", targets: ["abctl"]),
        .executable(name: "assign-bench", targets: ["AssignBenchmark"]),
        .executable(name: "handler-bench", targets: ["HandlerBenchmark"]),
        .executable(name: "client-bench", targets: ["ClientBenchmark"]),
        .executable(name: "webhook-bench", targets: ["WebhookBenchmark"]),
        .executable(name: "facts-walk-bench", targets: ["FactsWalkBenchmark"]),
    ],
    dependencies: [.package(path: "Client")],
    targets: [
        // C libraries from Debian, wrapped as system library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Client/: ExperimentDefinitions (the file format: JSON with positions, the model, validation,
        // products, the copy guard), PaywallCopy (paywall resolution for a request: discount text,
        // filled templates, AI recipes with briefs) and AbctlClient (the library an app adds).
        // FNV-1a bucketing, targeting, GrowthBook conditions, the Assigner.
        .target(name: "Assignment", dependencies: [definitions, "SystemCall"], swiftSettings: optimizedInDebug),
        // The experiments as a GrowthBook SDK payload (abctl export, GET /api/features/{clientKey}).
        .target(name: "GrowthBookPayload", dependencies: [definitions, paywallCopy]),
        // AI lines written on the server (OpenAI-compatible client, guard, retry, deadline, cache hook).
        // Apart from PaywallCopy, which the app-side AbctlClient uses, because it needs Mutex and Dispatch threads.
        .target(name: "CopyGeneration", dependencies: [definitions, paywallCopy]),
        // The one wrapper of blocking C library calls: errno read first, EINTR retried.
        .target(name: "SystemCall"),
        // No storage: the event model, the NDJSON parser, per-user facts (FactsBuilder) and the
        // store protocols every consumer is written against.
        .target(name: "Events", dependencies: [definitions, "SystemCall"], swiftSettings: optimizedInDebug),
        // Those protocols over SQLite: one group-committing writer, facts kept current at ingest, readers.
        .target(name: "SQLiteStore", dependencies: ["CSQLite", "Events", definitions], swiftSettings: optimizedInDebug),
        // The same protocols over PostgreSQL through libpq, for several serve nodes on one database.
        .target(name: "PostgresStore", dependencies: ["CLibPQ", "Events", definitions]),

        // Subcommands, options declared once as typed keys (type, default, environment variable), help and exit codes; no domain model.
        .target(name: "CommandLineKit"),

        // Pure math for reports: distributions, tests, Bayesian, sequential, survival, power.
        // Optimized in debug builds too, as it ships: the calibration suites run thousands of reports,
        // and unoptimized integrals and bootstraps made them several times slower (docs/Architecture.md).
        .target(name: "Statistics", swiftSettings: optimizedInDebug),

        // Synthetic users with known true rates, through the real assignment and store.
        .target(name: "Simulation", dependencies: ["Assignment", "Events", definitions, paywallCopy, "Statistics"], swiftSettings: optimizedInDebug),

        // Facts + Statistics -> a Report value -> text, Markdown, HTML with inline SVG, JSON, CSV.
        // Not optimized in debug builds: -O made it the dearest module to compile (about 50 s more CPU)
        // and saved nothing measurable, as reports spend their time in the Statistics they call.
        .target(name: "Reporting", dependencies: ["Statistics", "Events", definitions]),
        // Stores' webhooks (Stripe, Google Play): verified with OpenSSL, mapped onto events; no transport.
        .target(name: "Webhooks", dependencies: ["COpenSSL", "Events", definitions]),
        // One safeguard evaluation: facts -> mature outcomes -> mSPRT -> stops written through the store protocol.
        .target(name: "Safeguards", dependencies: ["Statistics", "Events", definitions]),
        // A bandit's period boundary: facts -> mature rewards -> chance of being best -> a period written through the store protocol.
        .target(name: "Allocation", dependencies: ["Statistics", "Events", definitions]),
        // HTTP/1.1 over libmicrohttpd: connections, deadlines, limits, lingering closes; knows no route or JSON.
        .target(name: "HTTPTransport", dependencies: ["CMicroHTTPD", "SystemCall"]),
        // The HTTP API on that transport: routing, JSON, auth, metrics, webhooks (see docs/Server.md).
        .target(name: "Server", dependencies: ["HTTPTransport", "SystemCall", "COpenSSL", definitions, paywallCopy, "CopyGeneration", "Assignment", "Events", "Reporting", "GrowthBookPayload", "Webhooks", "Safeguards", "Allocation"]),

        .executableTarget(name: "abctl", dependencies: ["CommandLineKit", "SystemCall", definitions, "Assignment", paywallCopy, "Events", "SQLiteStore", "PostgresStore", "Statistics", "Simulation", "Reporting", "Server", "HTTPTransport", "GrowthBookPayload", "Webhooks", "Safeguards", "Allocation"]),
        // Benchmark executables, in bench/ beside the scripts that build and run them (`make bench`).
        .executableTarget(name: "AssignBenchmark", dependencies: ["Assignment", definitions], path: "bench/AssignBenchmark"),
        .executableTarget(name: "HandlerBenchmark", dependencies: ["Server", "HTTPTransport", "SQLiteStore", definitions], path: "bench/HandlerBenchmark"),
        .executableTarget(name: "WebhookBenchmark", dependencies: ["Webhooks"], path: "bench/WebhookBenchmark"),
        .executableTarget(name: "ClientBenchmark", dependencies: [abctlClient], path: "bench/ClientBenchmark"),
        .executableTarget(name: "FactsWalkBenchmark", dependencies: ["CSQLite", "Events", "SQLiteStore", definitions], path: "bench/FactsWalkBenchmark"),

        // Helpers shared by test targets (temporary stores, event builders, a fake chat endpoint).
        .target(name: "TestSupport", dependencies: ["Events", "SQLiteStore", "Statistics", "SystemCall", definitions], path: "Tests/TestSupport"),
        .testTarget(name: "ExperimentDefinitionsTests", dependencies: [definitions, "Assignment", "TestSupport"]),
        .testTarget(name: "AssignmentTests", dependencies: ["Assignment", definitions, "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PaywallCopyTests", dependencies: [paywallCopy, "CopyGeneration", definitions, "Assignment", "TestSupport"]),
        .testTarget(name: "EventsTests", dependencies: ["Events", definitions, "TestSupport"]),
        .testTarget(name: "PostgresStoreTests", dependencies: ["PostgresStore", "Events", definitions, "SQLiteStore", "TestSupport"]),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore", "Events", definitions, "TestSupport"], exclude: ["Fixtures"]),
        // One suite over the store protocols, run against every store in StoreFactories.swift.
        .testTarget(name: "StoreConformanceTests", dependencies: ["Events", "SQLiteStore", "PostgresStore", "Reporting", "Safeguards", "Statistics", definitions, "Assignment", "TestSupport"]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", definitions, "Assignment", "Events", "SQLiteStore"], exclude: ["Fixtures"]),
        // Handlers in process (InProcess/InProcessServer.swift: a temporary store, a Server, its handle).
        .testTarget(name: "ServerTests", dependencies: ["Server", "Assignment", "HTTPTransport", definitions, "Events", "SQLiteStore", "PostgresStore", "TestSupport", "Webhooks", "Reporting"]),
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport"]),
        .testTarget(name: "WebhooksTests", dependencies: ["Webhooks", "Events", definitions], resources: [.copy("Fixtures")]),
        // Runs the built abctl binary; `make test` builds it first and runs these in a `swift test` of their own.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "Events", definitions, "SQLiteStore"], exclude: ["Fixtures"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Assignment", "Events", "SQLiteStore", definitions, "Reporting", "Statistics", "TestSupport"]),
        .testTarget(name: "AbctlClientTests", dependencies: [abctlClient, definitions, paywallCopy, "TestSupport"], resources: [.copy("Fixtures")]),
        // A process of its own for AbctlClientTests to kill with events queued (Tests/ClientProbe).
        .executableTarget(name: "ClientProbe", dependencies: [abctlClient], path: "Tests/ClientProbe"),
        .testTarget(name: "GrowthBookPayloadTests", dependencies: ["GrowthBookPayload", "Assignment", definitions]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "AllocationTests", dependencies: ["Allocation", "Safeguards", "Events", definitions, "Statistics", "SQLiteStore", "TestSupport", "Assignment", "Reporting"], exclude: ["Fixtures"]),
        .testTarget(name: "SafeguardsTests", dependencies: ["Safeguards", "Reporting", "Events", definitions, "Statistics", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
