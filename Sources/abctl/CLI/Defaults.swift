import Foundation

/// Default locations of SPEC §6: flags win, then environment variables, then the working folder.
enum Defaults {
    static func experimentsDirectory(_ flag: String? = nil) -> String {
        flag ?? environment("ABCTL_EXPERIMENTS") ?? "Experiments"
    }

    static func database(_ flag: String? = nil) -> String {
        flag ?? environment("ABCTL_DB") ?? "abctl.sqlite"
    }

    private static func environment(_ name: String) -> String? {
        guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
        return v
    }
}
