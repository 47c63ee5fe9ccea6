import CommandLineKit
import ExperimentDefinitions
import PaywallCopy

/// `abctl copy check`: runs a variant's guard on a line, as `POST /v1/copy/check` does.
enum CopyCheckCommand {
    static let spec = CommandSpec(
        name: "copy",
        abstract: "Check a line of AI paywall copy against its variant's guard.",
        subcommands: [check]
    )

    static let check = CommandSpec(
        name: "check",
        abstract: "Check a line against an ai_generated variant's guard.",
        discussion: """
        Run the guard of an ai_generated variant on a line: word limit, forbidden text and words, names mentioned
          once, the user's name. Exits 0 when the line passes, 1 when it breaks a rule.
        """,
        options: [
            .experimentID,
            .variant,
            .text,
            .userName,
            .experiments,
            .textOrJSON,
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else {
            throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: args.command)
        }
        let experimentID = args[.experimentID], variantKey = args[.variant], text = args[.text]
        let catalog = try ExperimentFolder.load(args[.experiments])
        let experiment = try ExperimentArgument.resolve(experimentID, in: catalog, command: args.command)
        guard let variant = experiment.variant(variantKey) else {
            throw CLIError.usage("experiment '\(experimentID)' has no variant '\(variantKey)'", command: args.command)
        }
        guard case .aiGenerated(let recipe)? = variant.paywall?.copy else {
            throw CLIError.usage("variant '\(variantKey)' uses \(variant.paywall.map { "\($0.copy.strategyName) copy" } ?? "no paywall"), which has no guard", command: args.command)
        }
        let verdict = recipe.guardRules.check(text, userName: args[.userName])
        if args[.textOrJSON] == "json" {
            print(verdict.json.serialized())
        } else if verdict.accepted {
            print("accepted: \(verdict.text)")
        } else {
            print("rejected: \(verdict.text)")
            for v in verdict.violations { print("  \(v.rule): \(v.message)") }
        }
        return verdict.accepted ? .success : .checkFailed
    }
}

private extension OptionKeys {
    static let experimentID = OptionKey<String>(required: "--experiment", value: "id", help: "The experiment id.")
    static let variant = OptionKey<String>(required: "--variant", value: "key", help: "The variant key; its copy must be ai_generated.")
    static let text = OptionKey<String>(required: "--text", value: "text", help: "The line to check.")
    static let userName = OptionKey<String?>("--user-name", value: "name", help: "The user's name, for forbid_user_name.")
}
