/// Errors a command throws; `ErrorReporter` maps each to a message and an exit code.
public enum CLIError: Error, Equatable {
    /// Bad arguments: exit 2, with a pointer to `--help`.
    case usage(String, command: String?)
    /// A check failed and the command already said why (e.g. invalid files): exit 1.
    case checkFailed(String)
    /// Something outside the arguments broke (store, file system, network): exit 3.
    case runtime(String)
}
