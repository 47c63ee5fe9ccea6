/// The namespace of option declarations, and the untyped face of every `OptionKey`.
///
/// A tool declares each option once as a static member of an extension, typed by what it holds:
///
///     extension OptionKeys {
///         static let db = OptionKey<String>("--db", value: "path", help: "The store.", environment: "ABCTL_DB", default: "abctl.sqlite")
///     }
///
/// A command then lists it (`options: [.db]`) and reads it (`args[.db]`, a `String`); a misspelt key
/// does not compile. An option only one command takes is declared in a `private extension` in
/// that command's file, so two commands can each have their own `--users`.
public class OptionKeys: @unchecked Sendable {
    /// The declaration the parser and the help printer read: name, value type, default, variable.
    public let spec: OptionSpec

    init(spec: OptionSpec) { self.spec = spec }
}
