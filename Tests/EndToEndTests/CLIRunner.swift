import Foundation

/// Runs the built `abctl` binary (env `ABCTL_BIN`, else `.build/debug/abctl`) and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let binary: String = ProcessInfo.processInfo.environment["ABCTL_BIN"] ?? packageRoot + "/.build/debug/abctl"

    static func run(_ arguments: [String], in directory: String? = nil, stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? packageRoot)
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
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
