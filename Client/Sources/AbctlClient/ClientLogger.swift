import Foundation

/// How loud a message of the client is.
public enum ClientLogLevel: String, Sendable, Comparable, CaseIterable {
    case info, warning, error

    public static func < (a: ClientLogLevel, b: ClientLogLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Where the client says what an app developer must hear: a key without the scope it needs, a
/// device clock the server does not agree with. Hand it the app's own logger, e.g. `os.Logger`:
///
/// ```swift
/// let logger = Logger(subsystem: "com.example.app", category: "abctl")
/// configuration.logger = { level, message in
///     level == .info ? logger.info("\(message)") : logger.error("\(message)")
/// }
/// ```
///
/// Called on whatever thread the client runs on; keep it quick. The same messages are kept in
/// `diagnostics()`.
public typealias ClientLogger = @Sendable (ClientLogLevel, String) -> Void

extension ClientConfiguration {
    /// The default logger: warnings and errors on standard error, prefixed `abctl:` (the Xcode
    /// console shows them).
    public static let standardErrorLogger: ClientLogger = { level, message in
        guard level >= .warning else { return }
        FileHandle.standardError.write(Data("abctl: \(level.rawValue): \(message)\n".utf8))
    }
}
