import Foundation
import TestSupport

/// The ClientProbe executable (Tests/ClientProbe), built next to abctl: an app process of its
/// own, to kill, to restart, and to time calls in without other tests sharing its threads.
enum ClientProbe {
    static var path: String { Abctl.sibling("ClientProbe") }

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the probe to its end.
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(path, arguments)
    }
}
