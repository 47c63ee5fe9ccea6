import CommandLineKit
import ExperimentDefinitions
import PaywallCopy

/// `abctl copy check`: runs a variant's guard on a line, as `POST /v1/copy/check` does.
enum CopyCheckCommand {
    static let spec = CommandSpec(
        name: "copy",
        abstract: "Check a line of AI paywall copy against its variant's guard.",
        discussion: """
        'abctl copy check' runs the guard of an ai_generated variant on a line: word limit, forbidden
          text and words, names mentioned once, the user's name. Exits 0 when the line passes, 1 when it breaks a rule.
        """,
        synopsis: "check --experiment <id> --variant <key> --text <text> [--user-name <name>] [--experiments <dir>] [--format <format>]",
        arguments: [ArgumentSpec(name: "action", help: "Only 'check'.")],
        options: [
            OptionSpec(name: "--experiment", valueName: "id", help: "The experiment id.", required: true),
            OptionSpec(name: "--variant", valueName: "key", help: "The variant key; its copy must be ai_generated.", required: true),
            OptionSpec(name: "--text", valueName: "text", help: "The line to check.", required: true),
            OptionSpec(name: "--user-name", valueName: "name", help: "The user's name, for forbid_user_name."),
            .experiments,
            .textOrJSON,
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals == ["check"] else {
            throw CLIError.usage("expected 'abctl copy check …'", command: "copy")
        }
        let experimentID = try args.required("--experiment"), variantKey = try args.required("--variant"), text = try args.required("--text")
        let catalog = try ExperimentFolder.load(args.required("--experiments"))
        let experiment = try ExperimentArgument.resolve(experimentID, in: catalog, command: "copy")
        guard let variant = experiment.variant(variantKey) else {
            throw CLIError.usage("experiment '\(experimentID)' has no variant '\(variantKey)'", command: "copy")
        }
        guard case .aiGenerated(let recipe)? = variant.paywall?.copy else {
            throw CLIError.usage("variant '\(variantKey)' uses \(variant.paywall.map { "\($0.copy.strategyName) copy" } ?? "no paywall"), which has no guard", command: "copy")
        }
        let verdict = recipe.guardRules.check(text, userName: args.value("--user-name"))
        if args.value("--format") == "json" {
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
