import Foundation
import TestSupport

/// Runs the built `abctl` binary (env `ABCTL_BIN`, else `.build/debug/abctl`) from the package root,
/// without colour, through the shared `AbctlBinary` helper.
enum CLIRunner {
    typealias Result = AbctlBinary.Output

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static var binary: String { AbctlBinary.path() }

    static func run(_ arguments: [String], in directory: String? = nil, stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        try AbctlBinary.run(arguments, stdin: stdin, environment: ["NO_COLOR": "1"].merging(environment) { $1 },
                            currentDirectory: directory ?? packageRoot)
    }
}

extension TemporaryFolder {
    func copyShippedExperiments() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: CLIRunner.packageRoot + "/Experiments") {
            try FileManager.default.copyItem(atPath: CLIRunner.packageRoot + "/Experiments/" + name, toPath: "\(path)/\(name)")
        }
    }
}
