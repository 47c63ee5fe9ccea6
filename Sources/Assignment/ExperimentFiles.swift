import ExperimentDefinitions
import Foundation

/// The one way to read experiment files: `ExperimentLoader` with every check, GrowthBook's condition
/// linter included (it lives here because conditions are compiled here).
///
/// `abctl validate`, `serve` and its reload, `report`, `assign`, `simulate`, `demo`, `ingest`,
/// `copy check` and `export` all read through it, so a folder `validate` rejects is rejected by all of them.
public enum ExperimentFiles {
    /// Checks files and folders, reporting every problem.
    /// `now`: the time against which a running experiment's `end` is checked (a warning once it has passed).
    public static func validate(paths: [String], now: Date = Date()) -> ExperimentLoader.Report {
        ExperimentLoader.validate(paths: paths, now: now, conditionLinter: linter)
    }

    /// Loads a folder for use; throws the diagnostics when any file has an error.
    public static func load(directory: String) throws(ExperimentLoader.LoadError) -> ExperimentCatalog {
        try ExperimentLoader.load(directory: directory, conditionLinter: linter)
    }

    static let linter: ExperimentLoader.ConditionLinter = { Condition.problems(in: $0) }
}
