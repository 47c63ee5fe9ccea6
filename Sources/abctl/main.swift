import CommandLineKit
import ExperimentDefinitions
#if canImport(Glibc)
import Glibc
#endif

let tool = CommandLineTool(
    name: "abctl",
    overview: "A/B experiments for subscription-app paywalls: validate, assign, ingest, report, serve.",
    version: "0.1.0",
    commands: CommandRegistry.all,
    suggest: { Spelling.closest(to: $0, in: $1) })
exit(tool.run(Array(CommandLine.arguments.dropFirst())).rawValue)
