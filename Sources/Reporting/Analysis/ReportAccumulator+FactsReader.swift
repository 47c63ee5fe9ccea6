import Events
import ExperimentDefinitions
import Foundation

extension ReportAccumulator {
    /// Reads `experiment`'s facts from a store in one pass (one row per user): users first exposed
    /// from `options.since` to the as-of moment of `inputs`, bounded in the store's read itself, and
    /// of each row only the parts the report reads (`factFields`).
    ///
    /// One as-of moment, however it was given (`--until`, `ABCTL_NOW`, a simulation's end,
    /// now): facts hold times and revenue entries, so `add` cuts every figure there, revenue included.
    public static func read(store: any FactsReader, experiment: Experiment, options: ReportOptions, inputs: ReportInputs) throws -> ReportAccumulator {
        var acc = ReportAccumulator(experiment: experiment, options: options, inputs: inputs)
        let since = options.since.map(Timestamp.init), until = Timestamp(inputs.asOf), fields = acc.factFields
        // Batches of columns unless a split reads attributes, which only whole rows carry.
        if fields.contains(.attributes) {
            try store.forEachFact(experiment: experiment.id, since: since, until: until, fields: fields) { acc.add($0) }
        } else {
            try store.forEachFactBatch(experiment: experiment.id, since: since, until: until, fields: fields) { acc.add($0) }
        }
        return acc
    }
}
