import Assignment
import CommandLineKit
import ExperimentDefinitions

/// How a command that uses experiments gets them: through `ExperimentFiles`, with every check
/// `abctl validate` runs, and the same refusal everywhere: exit 1 with the first errors in
/// validate's `file:line:column: error: message` form.
enum ExperimentFolder {
    static func load(_ directory: String) throws -> ExperimentCatalog {
        do {
            return try ExperimentFiles.load(directory: directory)
        } catch {
            throw CLIError.checkFailed(error.description)
        }
    }
}
