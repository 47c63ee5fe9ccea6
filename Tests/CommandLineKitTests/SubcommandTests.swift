import Testing
@testable import CommandLineKit

extension OptionKeys {
    fileprivate static let store = OptionKey<String>("--db", value: "path", help: "The store.", environment: "ABCTL_DB", default: "abctl.sqlite")
    fileprivate static let who = OptionKey<String?>("--by", value: "who", help: "Who lifts the stop.")
}

/// A command with subcommands (`safeguards check`, `safeguards reset`): each has its own arguments,
/// options and help; the parent's help lists them; an unknown one is a usage error with a did-you-mean.
@Suite struct SubcommandTests {
    static let check = CommandSpec(name: "check", abstract: "Evaluate once.", discussion: "Run one evaluation.", options: [.store],
                                   run: { _ in .success })
    static let reset = CommandSpec(name: "reset", abstract: "Lift a stop.",
                                   arguments: [ArgumentSpec(name: "experiment", help: "The experiment.", arity: .one),
                                               ArgumentSpec(name: "arm", help: "The arm.", arity: .one)],
                                   options: [.who, .store], run: { _ in .success })
    static let group = CommandSpec(name: "safeguards", abstract: "Safeguards.", discussion: "Evaluate safeguards, or lift a stop.", subcommands: [check, reset])
    static let tool = CommandLineTool(name: "abctl", overview: "A tool.", version: "1", commands: [group],
                                      suggest: { word, candidates in candidates.first { $0.first == word.first } })

    @Test func theWordsAfterTheGroupNameTheSubcommand() throws {
        let (spec, path, rest) = try Self.tool.resolve(["safeguards", "reset", "e", "arm", "--by", "ana"])
        #expect(spec.name == "reset" && path == ["safeguards", "reset"] && rest == ["e", "arm", "--by", "ana"])
        let (group, groupPath, options) = try Self.tool.resolve(["safeguards", "--help"])
        #expect(group.name == "safeguards" && groupPath == ["safeguards"] && options == ["--help"])
    }

    @Test func aSubcommandsOptionsAreItsOwnAndItsErrorsNameIt() throws {
        let args = try ArgumentParser.parse(["e", "arm", "--by", "ana"], for: Self.reset, command: "safeguards reset", environment: Environment([:]))
        #expect(args.positionals == ["e", "arm"] && args[.who] == "ana" && args[.store] == "abctl.sqlite")
        #expect(args.command == "safeguards reset")
        #expect(throws: CLIError.usage("Unknown option '--by'", command: "safeguards check")) {
            try ArgumentParser.parse(["--by", "ana"], for: Self.check, command: "safeguards check", environment: Environment([:]))
        }
    }

    @Test func anUnknownSubcommandIsAUsageErrorWithADidYouMean() {
        #expect(throws: CLIError.usage("Unknown subcommand 'chek'. Did you mean 'check'?", command: "safeguards")) {
            try Self.tool.resolve(["safeguards", "chek"])
        }
        #expect(throws: CLIError.usage("Unknown subcommand 'lift'", command: "safeguards")) {
            try Self.tool.resolve(["safeguards", "lift"])
        }
        #expect(throws: CLIError.usage("Unknown subcommand 'safeguard'. Did you mean 'safeguards'?", command: nil)) {
            try Self.tool.resolve(["safeguard", "check"])
        }
        #expect(Self.tool.run(["safeguards", "chek"]) == .usage)
        #expect(Self.tool.run(["safeguards", "--db", "x"]) == .usage)
    }

    @Test func aSubcommandHasItsOwnHelp() {
        let text = HelpPrinter(tool: "abctl", overview: "").help(for: Self.reset, path: ["safeguards", "reset"])
        #expect(text == """
            OVERVIEW: Lift a stop.

            USAGE: abctl safeguards reset <experiment> <arm> [--by <who>] [--db <path>]

            ARGUMENTS:
              <experiment>            The experiment.
              <arm>                   The arm.

            OPTIONS:
              --by <who>              Who lifts the stop.
              --db <path>             The store. (default: abctl.sqlite) (env: ABCTL_DB)
              -h, --help              Show help information.

            """)
    }

    @Test func theGroupsHelpListsItsSubcommands() {
        let text = HelpPrinter(tool: "abctl", overview: "").help(for: Self.group)
        #expect(text == """
            OVERVIEW: Evaluate safeguards, or lift a stop.

            USAGE: abctl safeguards <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              check                 Evaluate once.
              reset                 Lift a stop.

              See 'abctl help safeguards <subcommand>' for detailed help.

            """)
    }
}
