import CommandLineKit
import ExperimentDefinitions
import Foundation
import Reporting

/// `validate --db`: the hint of a shipped experiment with no `winner` names the arm the report's
/// verdict ships, read from the store; without a store the hint names no arm (the file's order
/// says nothing about which arm won).
enum WinnerHint {
    /// `fixedNow`: ABCTL_NOW; without it the report is read as `abctl report` reads it, as of the
    /// moment the store's data ends when it recorded one (a simulation), else now.
    static func fill(_ report: inout ExperimentLoader.Report, db: String, fixedNow: Date?) throws {
        let missing = report.diagnostics.indices.filter { report.diagnostics[$0].code == "missing_winner" }
        guard !missing.isEmpty else { return }
        let store = try StoreOpener.open(db, .init(mustExist: true))
        defer { store.close() }
        for i in missing {
            guard let experiment = report.experimentFiles.first(where: { $0.file == report.diagnostics[i].file })?.draft else { continue }
            let options = ReportOptions(clock: fixedNow, products: report.catalog?.products)
            let decision: Decision
            do {
                decision = try ReportBuilder.report(source: store, experiment: experiment, options: options).decision
            } catch {
                throw CLIError.runtime("cannot read the report of '\(experiment.id)' from \(db): \(error)")
            }
            if decision.verdict == .ship, let winner = decision.winner {
                report.diagnostics[i].hint = "add \"winner\": \"\(winner)\": the report's verdict ships '\(winner)'"
            } else {
                report.diagnostics[i].hint = "the report's verdict is \(decision.verdict.rawValue), which ships no arm yet: "
                    + "keep it running (\"status\": \"running\") until it does, or name the arm you ship yourself in \"winner\""
            }
        }
    }
}
