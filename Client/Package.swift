// swift-tools-version:6.0
// 6.0: the sources use typed throws (SE-0413), which no 5.x compiler accepts, and the Swift 6
// language mode checks their concurrency.
import PackageDescription

// The package an app adds: AbctlClient and the two pure-Swift targets it is built on, nothing else
// (no C, no store, no server). abctl's own package (the folder above) depends on this one by path,
// so both build the same sources. docs/Client.md: how to add it, and the version tags.
let package = Package(
    name: "AbctlClient",
    // The oldest systems whose SDKs have every API the sources call: `Duration`, `ContinuousClock`,
    // `Task.sleep(for:)` and `NSLocking.withLock` arrived with iOS 16 / macOS 13 / tvOS 16 /
    // watchOS 9 (visionOS has them from 1.0).
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        // What an app adds: always a paywall, AI copy on the device, exposures that are never lost.
        .library(name: "AbctlClient", targets: ["AbctlClient"]),
        // For abctl's own package, which builds its server on the same model.
        .library(name: "ExperimentDefinitions", targets: ["ExperimentDefinitions"]),
        .library(name: "PaywallCopy", targets: ["PaywallCopy"]),
    ],
    targets: [
        // The file format: JSON with positions, the model, validation, products, the copy guard.
        .target(name: "ExperimentDefinitions"),
        // Paywall resolution for a request: discount text, filled templates, AI recipes with briefs.
        .target(name: "PaywallCopy", dependencies: ["ExperimentDefinitions"]),
        // The app-side library: Foundation (FoundationNetworking on Linux) and the two targets above.
        .target(name: "AbctlClient", dependencies: ["ExperimentDefinitions", "PaywallCopy"]),
    ],
    swiftLanguageModes: [.v6]
)
