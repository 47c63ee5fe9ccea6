import CommandLineKit

/// Every subcommand, in the order `abctl --help` lists them. Add new commands here.
enum CommandRegistry {
    static let all: [CommandSpec] = [
        ValidateCommand.spec,
        AssignCommand.spec,
        IngestCommand.spec,
        SimulateCommand.spec,
        ReportCommand.spec,
        DemoCommand.spec,
        CopyCheckCommand.spec,
        PowerCommand.spec,
        ServeCommand.spec,
        ExportCommand.spec,
        ForecastCommand.spec,
        SafeguardsCommand.spec,
        AllocationCommand.spec,
    ]
}
