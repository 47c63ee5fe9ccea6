import Foundation

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

/// A fresh folder under the system temporary directory, removed when the last reference goes.
public final class TemporaryFolder {
    public let path: String

    public init(prefix: String = "abctl-test") {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` inside the folder and returns the file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = "\(path)/\(name)"
        try! text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
