import CommandLineKit

/// Options several commands take, declared once so their default and environment variable agree.
extension OptionSpec {
    static let experiments = OptionSpec(name: "--experiments", valueName: "dir", help: "The experiments folder.",
                                        environment: "ABCTL_EXPERIMENTS", default: "Experiments")
    static let database = OptionSpec(name: "--db", valueName: "path", help: "The event store: a SQLite file, or a postgres:// URL.",
                                     environment: "ABCTL_DB", default: "abctl.sqlite")
    /// `--format text|json`, for the commands whose output is either.
    static let textOrJSON = OptionSpec(name: "--format", valueName: "format", help: "Output format.", choices: ["text", "json"], default: "text")
}
