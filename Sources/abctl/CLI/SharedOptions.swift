import CommandLineKit

/// Options several commands take, declared once so their default and environment variable agree.
extension OptionKeys {
    static let experiments = OptionKey<String>("--experiments", value: "dir", help: "The experiments folder.",
                                               environment: "ABCTL_EXPERIMENTS", default: "Experiments")
    static let db = OptionKey<String>("--db", value: "path", help: "The event store: a SQLite file, or a postgres:// URL.",
                                      environment: "ABCTL_DB", default: "abctl.sqlite")
    /// `--format text|json`, for the commands whose output is either.
    static let textOrJSON = OptionKey<String>("--format", value: "format", help: "Output format.", choices: ["text", "json"], default: "text")
}
