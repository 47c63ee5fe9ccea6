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

/// A fresh folder under the system temporary directory, removed when the test is done.
final class TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "abctl-e2e-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = "\(path)/\(name)"
        try! text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func copyShippedExperiments() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: CLIRunner.packageRoot + "/Experiments") {
            try FileManager.default.copyItem(atPath: CLIRunner.packageRoot + "/Experiments/" + name, toPath: "\(path)/\(name)")
        }
    }
}
