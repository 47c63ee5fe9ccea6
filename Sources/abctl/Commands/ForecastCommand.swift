import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Reporting

/// `abctl forecast backtest`: forecasts refit on past data against what was realized.
enum ForecastCommand {
    static let spec = CommandSpec(
        name: "forecast",
        abstract: "Check revenue forecasts against what was realized (forecast backtest).",
        subcommands: [backtest]
    )

    static let backtest = CommandSpec(
        name: "backtest",
        abstract: "Refit forecasts on past data and compare them with what was realized.",
        discussion: """
        Refit each experiment's revenue-per-user forecast on its data as it stood
          --at DAYS after the start (repeatable; default 30, 60 and 90) and print, per arm, the forecast at the
          horizon (forecast.horizon_days, 365) against what those users went on to earn by the horizon, or by now
          with the share still to come, and the error (forecast / realized - 1) once complete. See docs/Forecast.md.
        """,
        arguments: [ArgumentSpec(name: "experiment", help: "An experiment id (default: every experiment with data).")],
        options: [
            .at,
            .db,
            .experiments,
            .textOrJSON,
        ],
        settings: [.now],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count <= 1 else { throw CLIError.usage("expected at most one <experiment>", command: args.command) }
        var atDays: [Int] = []
        for text in args[.at] {
            guard let n = Int(text), n >= 1, n <= 3650 else { throw CLIError.usage("'--at' expects whole days from 1 to 3650, got '\(text)'", command: args.command) }
            atDays.append(n)
        }
        if atDays.isEmpty { atDays = [30, 60, 90] }
        let format = args[.textOrJSON]
        let now = FixedClock.now(args) ?? Date()
        let catalog = try ExperimentFolder.load(args[.experiments])
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        let summaries = try ReportCommand.runtime { try store.experiments() }
        var experiments: [Experiment] = []
        if let id = args.positionals.first {
            experiments = [try ExperimentArgument.resolve(id, in: catalog, command: args.command)]
        } else {
            experiments = summaries.compactMap { catalog.experiment($0.experiment) }
        }
        var rows: [ForecastBacktest.Row] = []
        for experiment in experiments {
            let first = summaries.first { $0.experiment == experiment.id }?.firstExposure.date
            rows += try ReportCommand.runtime {
                try ForecastBacktest.run(store: store, experiment: experiment, products: catalog.products, atDays: atDays, now: now, firstExposure: first)
            }
        }
        let body = format == "json" ? ForecastBacktest.json(rows).serialized() + "\n" : ForecastBacktest.text(rows, currency: catalog.products.currency)
        FileHandle.standardOutput.write(Data(body.utf8))
        return .success
    }
}

private extension OptionKeys {
    /// Text, so that a bad value keeps the message that names the range in days.
    static let at = OptionKey<[String]>("--at", value: "days", help: "Days after the start at which to refit (repeatable).")
}
