// swift-tools-version:6.0
import PackageDescription

// Layers (see README "Architecture"): lower targets never import higher ones.
let package = Package(
    name: "abctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "abctl", targets: ["abctl"]),
        // Benchmark only (bench/assign.sh); not shipped.
        .executable(name: "assign-bench", targets: ["AssignBenchmark"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // The file format: JSON with positions, the model, validation, products.
        .target(name: "ExperimentDefinitions"),
        // FNV-1a bucketing, targeting, GrowthBook conditions, the Assigner.
        .target(name: "Assignment", dependencies: ["ExperimentDefinitions"]),

        // Paywall resolution for a request: discount text, filled templates, AI recipes with briefs.
        .target(name: "PaywallCopy", dependencies: ["ExperimentDefinitions"]),

        // The HTTP API over libmicrohttpd: routing, JSON, auth, metrics.
        .target(name: "Server", dependencies: ["CMicroHTTPD", "ExperimentDefinitions", "PaywallCopy", "Assignment"]),

        .executableTarget(name: "AssignBenchmark", dependencies: ["Assignment"]),

        .executableTarget(name: "abctl", dependencies: ["ExperimentDefinitions", "PaywallCopy", "Assignment", "Server"]),

        .testTarget(name: "ExperimentDefinitionsTests", dependencies: ["ExperimentDefinitions"]),
        .testTarget(name: "PaywallCopyTests", dependencies: ["PaywallCopy", "ExperimentDefinitions"]),
        .testTarget(name: "AssignmentTests", dependencies: ["Assignment", "ExperimentDefinitions"], exclude: ["Fixtures"]),
        .testTarget(name: "ServerTests", dependencies: ["Server", "ExperimentDefinitions"]),
        // Runs the built abctl binary; `make test` builds it first.
        .testTarget(name: "EndToEndTests"),
    ],
    swiftLanguageModes: [.v6]
)
