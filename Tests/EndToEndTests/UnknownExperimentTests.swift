import Foundation
import TestSupport
import Testing

/// Every command that takes an experiment id refuses one the folder lacks in the same words
/// (`ExperimentCatalog.unknownExperimentMessage`, through the one resolver): a usage error (exit 2)
/// naming the nearest id and the folder's experiments.
@Suite struct UnknownExperimentTests {
    static let message = "no experiment 'chorus-voce' in the experiment folder. Did you mean 'chorus-voice'? Experiments: "

    @Test func everyCommandRefusesAnUnknownIdInTheSameWords() async throws {
        let folder = TemporaryFolder()
        let experiments = folder.path + "/Experiments"
        try FileManager.default.createDirectory(atPath: experiments, withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: experiments)
        let db = folder.path + "/events.sqlite"
        let ingest = try await Abctl.run(["ingest", "-", "--db", db, "--experiments", experiments],
                                         stdin: #"{"event_id":"e1","type":"exposure","user_id":"u1","experiment":"chorus-voice","variant":"warm","ts":"2026-12-01T10:00:00Z"}"# + "\n")
        #expect(ingest.status == 0 || ingest.status == 1, "\(ingest.stderr)")
        let commands: [[String]] = [
            ["report", "chorus-voce", "--db", db, "--experiments", experiments],
            ["forecast", "backtest", "chorus-voce", "--db", db, "--experiments", experiments],
            ["allocation", "show", "chorus-voce", "--db", db, "--experiments", experiments],
            ["copy", "check", "--experiment", "chorus-voce", "--variant", "ai", "--text", "Hear every bird.", "--experiments", experiments],
            ["assign", "--user", "u1", "--experiment", "chorus-voce", "--experiments", experiments],
        ]
        for arguments in commands {
            let run = try await Abctl.run(arguments, environment: ["ABCTL_NOW": "2026-12-10T00:00:00Z"])
            #expect(run.status == 2, "\(arguments[0]): exit \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(Self.message), "\(arguments[0]): \(run.stderr)")
        }
    }
}
