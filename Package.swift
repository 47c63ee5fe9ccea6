// swift-tools-version:6.0
import PackageDescription

// Layers (see README "Architecture"): lower targets never import higher ones.
let package = Package(
    name: "abctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "abctl", targets: ["abctl"]),
        .executable(name: "assign-bench", targets: ["AssignBenchmark"]),
        .executable(name: "handler-bench", targets: ["HandlerBenchmark"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // The file format: JSON with positions, the model, validation, products, the copy guard.
        .target(name: "ExperimentDefinitions"),
        // FNV-1a bucketing, targeting, GrowthBook conditions, the Assigner.
        .target(name: "Assignment", dependencies: ["ExperimentDefinitions"]),
        // Paywall resolution for a request: discount text, filled templates, AI recipes with briefs.
        .target(name: "PaywallCopy", dependencies: ["ExperimentDefinitions"]),
        // Events and per-(experiment, user) facts in SQLite.
        .target(name: "EventStore", dependencies: ["CSQLite", "ExperimentDefinitions"]),
        // The same events and facts in PostgreSQL through libpq, for several serve nodes on one database.
        .target(name: "PostgresStore", dependencies: ["CLibPQ", "EventStore", "ExperimentDefinitions"]),

        // Pure math for reports: distributions, tests, Bayesian, sequential, survival, power.
        .target(name: "Statistics"),

        // Synthetic users with known true rates, through the real assignment and store.
        .target(name: "Simulation", dependencies: ["Assignment", "EventStore", "ExperimentDefinitions", "PaywallCopy", "Statistics"]),

        // Facts + Statistics -> a Report value -> text, Markdown, HTML with inline SVG, JSON, CSV.
        .target(name: "Reporting", dependencies: ["Statistics", "EventStore", "ExperimentDefinitions", "PaywallCopy"]),
        // The HTTP API over libmicrohttpd: routing, JSON, auth, metrics (see docs/Server.md).
        .target(name: "Server", dependencies: ["CMicroHTTPD", "ExperimentDefinitions", "PaywallCopy", "Assignment", "EventStore", "Reporting"]),

        .executableTarget(name: "abctl", dependencies: ["ExperimentDefinitions", "Assignment", "PaywallCopy", "EventStore", "Statistics", "Simulation", "Reporting", "Server"]),
        .executableTarget(name: "AssignBenchmark", dependencies: ["Assignment"]),
        .executableTarget(name: "HandlerBenchmark", dependencies: ["Server"]),

        // Helpers shared by test targets (temporary stores, event builders, a fake chat endpoint).
        .target(name: "TestSupport", dependencies: ["EventStore", "Statistics"], path: "Tests/TestSupport"),
        .testTarget(name: "ExperimentDefinitionsTests", dependencies: ["ExperimentDefinitions", "TestSupport"]),
        .testTarget(name: "AssignmentTests", dependencies: ["Assignment", "ExperimentDefinitions"], exclude: ["Fixtures"]),
        .testTarget(name: "PaywallCopyTests", dependencies: ["PaywallCopy", "ExperimentDefinitions", "TestSupport"]),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "TestSupport"]),
        .testTarget(name: "PostgresStoreTests", dependencies: ["PostgresStore", "EventStore", "TestSupport"]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "ExperimentDefinitions", "EventStore"], exclude: ["Fixtures"]),
        .testTarget(name: "ServerTests", dependencies: ["Server", "ExperimentDefinitions"]),
        // Runs the built abctl binary; `make test` builds it first.
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Assignment", "EventStore", "ExperimentDefinitions"]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics"], resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
