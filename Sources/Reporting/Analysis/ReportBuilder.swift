import Events
import ExperimentDefinitions

/// One call from a store to a finished report.
public enum ReportBuilder {
    /// Reads what the report needs from `source` (`ReportInputs.read`: the as-of moment, stops,
    /// periods, people; then the facts), and analyses it.
    public static func report(source: any ReportSource, experiment: Experiment, options: ReportOptions) throws -> Report {
        let inputs = try ReportInputs.read(from: source, experiment: experiment, options: options)
        return try ReportAnalyzer.analyze(try ReportAccumulator.read(store: source, experiment: experiment, options: options, inputs: inputs))
    }
}
