import Foundation

/// The one place where errors become stderr lines and exit codes (SPEC §6).
enum ErrorReporter {
    static func exitCode(for error: Error) -> ExitCode {
        switch error {
        case CLIError.usage(let message, let command):
            let hint = command.map { "See 'abctl \($0) --help'." } ?? "See 'abctl --help'."
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

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("abctl: error: \(message)\n".utf8))
    }
}
