import Foundation
import TestSupport
import Testing

/// `abctl report` and `GET /v1/experiments/{id}/report` take the same inputs through one check
/// (`ReportParameters`): one table of cases, each run through both doors, must be accepted by both
/// with the same report, or refused by both with the same message (each naming the input as that
/// door spells it: `--min-segment-users`, `min_segment_users`).
@Suite struct ReportInputsAgreeTests {
    static let now = ["ABCTL_NOW": "2026-12-10T00:00:00Z"]
    static let experiment = "chorus-trial-length"

    /// (CLI arguments, query string, accepted)
    static let cases: [([String], String, Bool)] = [
        ([], "", true),
        (["--since", "2026-12-01"], "since=2026-12-01", true),
        (["--since", "2026-12-01T06:00:00Z"], "since=2026-12-01T06:00:00Z", true),
        (["--until", "2026-12-05"], "until=2026-12-05", true),
        (["--since", "yesterday"], "since=yesterday", false),
        (["--since", "2026-12-05", "--until", "2026-12-01"], "since=2026-12-05&until=2026-12-01", false),
        (["--since", "2026-12-01", "--until", "2026-12-01"], "since=2026-12-01&until=2026-12-01", false),
        (["--alpha", "0.1"], "alpha=0.1", true),
        (["--alpha", "0.5"], "alpha=0.5", false),
        (["--alpha", "0"], "alpha=0", false),
        (["--alpha", "abc"], "alpha=abc", false),
        (["--by", "country"], "by=country", true),
        (["--by", "country", "--by", "platform"], "by=country&by=platform", true),
        (["--by", "country,platform"], "by=country,platform", true),
        (["--by", "contry"], "by=contry", false),
        (["--by", ""], "by=", false),
        (["--by", "country,"], "by=country,", false),
        (["--min-segment-users", "50"], "min_segment_users=50", true),
        (["--min-segment-users", "0"], "min_segment_users=0", false),
        (["--min-segment-users", "1.5"], "min_segment_users=1.5", false),
    ]

    /// The message with each door's spelling of an input's name made the same.
    static func normalized(_ message: String) -> String {
        var text = message
        for (option, name) in [("--min-segment-users", "min_segment_users"), ("--since", "since"), ("--until", "until"),
                               ("--alpha", "alpha"), ("--by", "by")] {
            text = text.replacingOccurrences(of: "'\(option)'", with: "'\(name)'")
        }
        return text
    }

    @Test func theCommandAndTheEndpointAcceptAndRefuseTheSameInputs() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        var lines: [String] = []
        for i in 0..<400 {
            let arm = i % 2 == 0 ? "trial-7d" : "trial-3d"
            let country = ["US", "DE", "JP"][i % 3], platform = ["ios", "android"][i % 2 == 0 ? 0 : 1]
            let day = 1 + i % 8
            lines.append(#"{"event_id":"x\#(i)","type":"exposure","user_id":"u\#(i)","experiment":"\#(Self.experiment)","variant":"\#(arm)","ts":"2026-12-0\#(day)T10:00:00Z","attributes":{"country":"\#(country)","platform":"\#(platform)"}}"#)
            if i % 5 == 0 {
                lines.append(#"{"event_id":"t\#(i)","type":"trial_started","user_id":"u\#(i)","ts":"2026-12-0\#(day)T10:05:00Z","product_id":"chorus.plus.annual"}"#)
            }
        }
        let ingest = try await Abctl.run(["ingest", "-", "--db", folder.path + "/events.sqlite", "--experiments", folder.path + "/Experiments"],
                                         stdin: lines.joined(separator: "\n") + "\n")
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let server = try await ServeProcess.start(environment: Self.now, database: folder.path + "/events.sqlite")
        defer { Task { await server.stop() } }

        for (arguments, query, accepted) in Self.cases {
            let cli = try await Abctl.run(["report", Self.experiment, "--format", "json", "--db", folder.path + "/events.sqlite",
                                           "--experiments", folder.path + "/Experiments"] + arguments, environment: Self.now)
            let api = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report" + (query.isEmpty ? "" : "?" + query))
            if accepted {
                #expect(cli.status == 0 && api.status == 200, "\(arguments): CLI \(cli.status) \(cli.stderr); API \(api.status) \(api.text.prefix(300))")
                let fromCLI = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? NSDictionary
                let fromAPI = try JSONSerialization.jsonObject(with: Data(api.text.utf8)) as? NSDictionary
                #expect(fromCLI != nil && fromCLI == fromAPI, "\(arguments): the two doors' reports differ")
            } else {
                #expect(cli.status == 2 && api.status == 400, "\(arguments): CLI \(cli.status), API \(api.status)")
                let apiMessage = try #require(api.error?["message"] as? String, "\(api.text)")
                let cliMessage = cli.stderr.components(separatedBy: "\n").first { $0.hasPrefix("abctl: error: ") || $0.hasPrefix("error: ") } ?? cli.stderr
                #expect(Self.normalized(cliMessage).contains(Self.normalized(apiMessage)), "\(arguments): CLI '\(cliMessage)' vs API '\(apiMessage)'")
            }
        }
        // A query parameter the report does not take is refused, naming it, as an unknown option is.
        let unknown = try await server.request("GET", "/v1/experiments/\(Self.experiment)/report?sinse=2026-12-01")
        #expect(unknown.status == 400 && unknown.error?["field"] as? String == "sinse", "\(unknown.text)")
        #expect((unknown.error?["message"] as? String)?.contains("Did you mean 'since'?") == true, "\(unknown.text)")
        let cli = try await Abctl.run(["report", Self.experiment, "--sinse", "2026-12-01", "--db", folder.path + "/events.sqlite"])
        #expect(cli.status == 2 && cli.stderr.contains("--since"), "\(cli.stderr)")
    }
}
