import Foundation
import TestSupport
import Testing

/// The package an app adds (Client/Package.swift) holds the pure-Swift targets the client needs
/// and nothing else: no system library (an app's build would need SQLite's or OpenSSL's headers),
/// and no whole module re-exported into an app's namespace.
@Suite struct ClientPackageTests {
    static let clientFolder = Abctl.packageRoot + "/Client"

    @Test func theManifestHasNoSystemLibraryTarget() async throws {
        let run = try await ChildProcess.run("/usr/bin/env", ["swift", "package", "--package-path", Self.clientFolder, "dump-package"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let kinds = Dictionary(uniqueKeysWithValues: targets.map { ($0["name"] as? String ?? "?", $0["type"] as? String ?? "?") })
        #expect(kinds == ["ExperimentDefinitions": "regular", "PaywallCopy": "regular", "AbctlClient": "regular"], "\(kinds)")
        #expect(!kinds.values.contains("system"))
        #expect((manifest["dependencies"] as? [Any])?.isEmpty == true, "the client package depends on no other package")
        let pkgConfig = targets.compactMap { $0["pkgConfig"] as? String }
        #expect(pkgConfig.isEmpty)
    }

    /// `@_exported import` of a whole module would put Experiment, Variant, Placement and the
    /// rest of the server's model into every app that imports AbctlClient; only single
    /// declarations (`@_exported import struct Module.Name`) are re-exported.
    @Test func onlyNamedDeclarationsAreReExported() throws {
        let folder = Self.clientFolder + "/Sources/AbctlClient"
        var exported: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("@_exported") {
                let words = line.split(separator: " ")
                #expect(words.count == 4 && ["struct", "enum", "class", "protocol", "typealias"].contains(String(words[2])),
                        "\(file): '\(line)' re-exports a whole module")
                exported.append(String(words.last ?? ""))
            }
        }
        #expect(exported.sorted() == [
            "ExperimentDefinitions.CopyGuard", "ExperimentDefinitions.CopySource", "ExperimentDefinitions.DiscountClaim", "ExperimentDefinitions.DiscountFraming",
            "ExperimentDefinitions.EventID", "ExperimentDefinitions.EventType", "ExperimentDefinitions.FallbackReason",
            "ExperimentDefinitions.JSONValue", "ExperimentDefinitions.UserID", "PaywallCopy.CopyRecipe", "PaywallCopy.ResolvedCopy",
            "PaywallCopy.ResolvedPaywall", "PaywallCopy.ResolvedPlan",
        ])
    }

    /// An app's file that imports AbctlClient, type-checked against the built module: the names
    /// an app uses resolve, the server's model does not.
    @Test func anAppSeesTheClientsNamesAndNotTheServersModel() async throws {
        let folder = TemporaryFolder(prefix: "abctl-app-namespace")
        let modules = Abctl.packageRoot + "/.build/debug/Modules"
        try #require(FileManager.default.fileExists(atPath: modules + "/AbctlClient.swiftmodule"), "build first (swift build)")
        func typecheck(_ source: String) async throws -> ChildProcess.Output {
            let path = folder.write("app.swift", source)
            return try await ChildProcess.run("/usr/bin/env", ["swiftc", "-typecheck", "-I", modules, path])
        }
        let uses = try await typecheck("""
            import AbctlClient
            let paywall = ResolvedPaywall(offering: "o", trialDays: 3, copy: .text("t", source: .static, fallbackReason: nil))
            let user: UserID = "u1"
            let attributes: [String: JSONValue] = ["platform": .string("ios")]
            let kind: EventType = .exposure
            let text = JSONValue.object([("a", .bool(true))]).serialized()
            let framing: DiscountFraming = .none
            let reason: FallbackReason = .noModel
            """)
        #expect(uses.status == 0, "\(uses.stderr)")
        for name in ["Experiment", "Variant", "Placement", "ExperimentCatalog", "Metric", "Paywall"] {
            let leak = try await typecheck("import AbctlClient\nlet x: \(name)? = nil\n")
            #expect(leak.status != 0 && leak.stderr.contains("cannot find type '\(name)'"), "\(name) is in an app's namespace: \(leak.stderr)")
        }
        withExtendedLifetime(folder) {}
    }
}
