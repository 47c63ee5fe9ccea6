import Foundation

/// The one place where errors become stderr lines (`TOOL: error: …`) and exit codes.
public struct ErrorReporter: Sendable {
    public var tool: String

    public init(tool: String) { self.tool = tool }

    public func exitCode(for error: Error) -> ExitCode {
        switch error {
        case CLIError.usage(let message, let command):
            let hint = command.map { "See '\(tool) \($0) --help'." } ?? "See '\(tool) --help'."
            printError("\(message)\n\(hint)")
            return .usage
        case CLIError.checkFailed(let message):
            if !message.isEmpty { printError(message) }
            return .checkFailed
        case CLIError.runtime(let message):
            printError(message)
            return .runtime
        default:
            printError(String(describing: error))
            return .runtime
        }
    }

    public func printError(_ message: String) {
        FileHandle.standardError.write(Data("\(tool): error: \(message)\n".utf8))
    }
}
