import Foundation

/// `abctl demo` as `make demo` runs it: the shipped Experiments/, the default story, no clock from the
/// shell. Run once per test process, on first use: a demo is one of the dearest programs the suites
/// run, and several suites need only a folder where the demo has run. A suite that writes there works
/// in a `copy()`.
public struct ShippedDemo: Sendable {
    /// The folder the demo ran in: Experiments/, Reports/ and abctl.sqlite. Read it, never write it.
    public let folder: TemporaryFolder
    public let output: Abctl.Output

    /// The process's one run, started by the first suite that awaits it.
    public static let run = Task { try await ShippedDemo() }

    private init() async throws {
        let folder = TemporaryFolder(prefix: "abctl-shipped-demo")
        folder.removeAtExit()
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        self.folder = folder
        output = try await Abctl.run(["demo"], in: folder.path, environment: ["ABCTL_NOW": ""])
    }

    /// A folder of the caller's own holding everything the demo left.
    public func copy(prefix: String) throws -> TemporaryFolder {
        let own = TemporaryFolder(prefix: prefix)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try FileManager.default.copyItem(atPath: folder.path + "/" + name, toPath: own.path + "/" + name)
        }
        return own
    }
}
