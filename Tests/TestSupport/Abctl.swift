import Foundation

/// The built `abctl` (`$ABCTL_BIN`, else `.build/debug/abctl`), run as a `ChildProcess`: the one
/// way tests run it, `serve` included (`ServeProcess`).
public enum Abctl {
    public typealias Output = ChildProcess.Output

    public static var path: String {
        if let path = ProcessInfo.processInfo.environment["ABCTL_BIN"], !path.isEmpty { return path }
        return packageRoot + "/.build/debug/abctl"
    }

    /// Where Package.swift is.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A program built beside abctl (e.g. `ClientProbe`).
    public static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs abctl to its end from `directory` (else the package root), without colour, with
    /// `environment` over the inherited one; killed if still running after `limit`.
    public static func run(_ arguments: [String], in directory: String? = nil, stdin: String? = nil, environment: [String: String] = [:],
                           limit: Duration = .seconds(600)) async throws -> Output {
        try await ChildProcess.run(path, arguments, environment: ["NO_COLOR": "1"].merging(environment) { $1 },
                                   in: directory ?? packageRoot, stdin: stdin, limit: limit)
    }

    /// Copies the shipped `Experiments/` files into `folder`.
    public static func copyShippedExperiments(to folder: String, except left: Set<String> = []) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Experiments") where !left.contains(name) {
            try FileManager.default.copyItem(atPath: packageRoot + "/Experiments/" + name, toPath: folder + "/" + name)
        }
    }
}
