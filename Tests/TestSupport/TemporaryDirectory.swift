import Foundation
import Synchronization

/// A fresh directory under the system temp folder, removed by `remove()` or `withTemporaryDirectory`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(prefix: String = "abctl-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a temporary directory that is removed afterwards.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    return try await body(dir)
}

/// A `TemporaryDirectory` removed when the last reference goes, for tests that hand it around.
public final class TemporaryFolder: Sendable {
    private let directory: TemporaryDirectory
    public var path: String { directory.url.path }

    public init(prefix: String = "abctl-test") {
        directory = try! TemporaryDirectory(prefix: prefix)
    }

    deinit { directory.remove() }

    /// Writes `text` to `name` inside the folder and returns the file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = directory.path(name)
        try! text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

extension TemporaryFolder {
    /// Removes the folder when the test process exits: for one a `static` keeps (never released),
    /// e.g. a store several tests of a run read instead of each building its own.
    public func removeAtExit() { ExitCleanup.add(path) }
}

private enum ExitCleanup {
    static let paths = Mutex<[String]>([])
    static let registered: Void = {
        atexit { for path in ExitCleanup.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) } }
    }()

    static func add(_ path: String) {
        _ = registered
        paths.withLock { $0.append(path) }
    }
}
