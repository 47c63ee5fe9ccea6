import Foundation
import TestSupport

/// The ClientProbe executable (Tests/ClientProbe), built next to abctl: an app process of its
/// own, to kill, to restart, and to time calls in without other tests sharing its threads.
enum ClientProbe {
    static var path: String { URL(fileURLWithPath: AbctlBinary.path()).deletingLastPathComponent().appendingPathComponent("ClientProbe").path }

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the probe to the end; its exit status and stdout.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
