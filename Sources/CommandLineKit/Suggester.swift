/// The tool's did-you-mean: the candidate nearest to a mistyped word, when it is close enough to
/// be a likely typo, else nil. The tool passes in the rule its other messages use, so an unknown
/// option, an unknown subcommand and an unknown field in a file are suggested alike.
public typealias Suggester = @Sendable (_ word: String, _ candidates: [String]) -> String?
