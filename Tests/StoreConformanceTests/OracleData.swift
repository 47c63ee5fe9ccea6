import Assignment
import Events
import ExperimentDefinitions
import Foundation

/// The Reporting tests' oracle data set (`Tests/ReportingTests/Fixtures/oracle`, made by its
/// `make_oracle.py`): 4,939 events of one experiment, read here as plain events.
struct OracleData {
    let experiment: Experiment
    let events: [Event]

    static func load() throws -> OracleData {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        let folder = url.deletingLastPathComponent().path + "/ReportingTests/Fixtures/oracle"
        guard let experiment = try ExperimentFiles.load(directory: folder + "/experiments").experiment("oracle-report") else {
            throw Missing(what: "oracle-report in \(folder)/experiments")
        }
        let parser = EventParser()
        let text = try String(contentsOfFile: folder + "/events.ndjson", encoding: .utf8)
        let events = try text.split(separator: "\n").map { line -> Event in
            guard case .success(let event)? = parser.parse(line: String(line)) else { throw Missing(what: "a valid event: \(line)") }
            return event
        }
        return OracleData(experiment: experiment, events: events)
    }

    struct Missing: Error { var what: String }
}
