import CommandLineKit
import ExperimentDefinitions
import Foundation
import GrowthBookPayload

/// `abctl export --format growthbook`: the GrowthBook SDK payload on stdout, the
/// same bytes `GET /api/features/{clientKey}` serves (one builder, `GrowthBookPayload`).
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Print the experiments as a GrowthBook SDK payload.",
        discussion: """
        Print the running experiments inside their dates as the JSON a GrowthBook SDK loads from
          /api/features/{clientKey}: one feature per experiment, with forced users as force rules and
          the targeting as a GrowthBook condition. ABCTL_NOW (RFC 3339) fixes the clock. Paywalls carry the
          default storefront's plans and discount text; --country gives that country's storefront's
          (products.json storefronts), for an app that loads one payload per storefront.
        """,
        options: [
            .payloadFormat,
            .experiments,
            .country,
        ],
        settings: [.now],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: "export") }
        let now = FixedClock.now(args) ?? Date()
        let catalog = try ExperimentFolder.load(args[.experiments])
        let payload = GrowthBookPayload.build(catalog: catalog, now: now, country: args[.country])
        FileHandle.standardOutput.write(Data(payload.body + [0x0A]))
        return .success
    }
}

private extension OptionKeys {
    /// Read by no one: the one choice it has is the payload `run` writes.
    static let payloadFormat = OptionKey<String>(required: "--format", value: "format", help: "The payload format.", choices: ["growthbook"])
    static let country = OptionKey<String?>("--country", value: "code", help: "Price the paywalls for this country's storefront (ISO 3166, e.g. JP).")
}
