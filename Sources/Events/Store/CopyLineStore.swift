import Foundation

/// Lines that server-side generation wrote and the guard accepted, kept by (experiment, variant,
/// brief) so a restart, or another node, does not ask the model again.
public protocol CopyLineStore: Sendable {
    /// The line cached for (experiment, variant, brief), if any.
    func cachedCopyLine(experiment: String, variant: String, brief: String) throws -> CachedCopyLine?

    /// Stores (or replaces) the line for (experiment, variant, brief); returns after the commit.
    func saveCopyLine(_ line: String, experiment: String, variant: String, brief: String, at time: Timestamp) throws
}

/// One cached line and when it was written.
public struct CachedCopyLine: Sendable, Equatable {
    public var line: String
    public var createdAt: Timestamp

    public init(line: String, createdAt: Timestamp) {
        self.line = line
        self.createdAt = createdAt
    }
}

extension CopyLineStore {
    /// Stores the line as written now.
    public func saveCopyLine(_ line: String, experiment: String, variant: String, brief: String) throws {
        try saveCopyLine(line, experiment: experiment, variant: variant, brief: brief, at: Timestamp(Date()))
    }
}
