// swift-tools-version:6.0
import PackageDescription

// Layers (see README "Architecture"): lower targets never import higher ones.
let package = Package(
    name: "abctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "abctl", targets: ["abctl"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // The file format: JSON with positions, the model, validation, products.
        .target(name: "ExperimentDefinitions"),

        // Events and per-(experiment, user) facts in SQLite.
        .target(name: "EventStore", dependencies: ["CSQLite", "ExperimentDefinitions"]),
        // Helpers shared by test targets (temporary stores, event builders).
        .target(name: "TestSupport", dependencies: ["EventStore"], path: "Tests/TestSupport"),

        .executableTarget(name: "abctl", dependencies: ["ExperimentDefinitions", "EventStore"]),

        .testTarget(name: "ExperimentDefinitionsTests", dependencies: ["ExperimentDefinitions"]),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
