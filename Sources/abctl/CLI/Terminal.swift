import CommandLineKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether to colour output: only on a terminal, and never when NO_COLOR is set (no-color.org).
enum Terminal {
    static var stdoutSupportsColor: Bool { supportsColor(fd: 1) }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static func supportsColor(fd: Int32) -> Bool {
        let environment = Environment.process
        if environment["NO_COLOR"] != nil { return false }
        if environment["TERM"] == "dumb" { return false }
        return isatty(fd) == 1
    }

    static func paint(_ text: String, _ code: String, _ enabled: Bool) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
