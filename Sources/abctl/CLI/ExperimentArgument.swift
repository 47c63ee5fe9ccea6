import CommandLineKit
import ExperimentDefinitions

/// The one reading of an experiment id typed on the command line, for every command: the
/// experiment, or a usage error with the message every front door gives (the nearest id and the
/// folder's experiments).
enum ExperimentArgument {
    static func resolve(_ id: String, in catalog: ExperimentCatalog, command: String) throws -> Experiment {
        guard let experiment = catalog.experiment(id) else {
            throw CLIError.usage(catalog.unknownExperimentMessage(id), command: command)
        }
        return experiment
    }
}
