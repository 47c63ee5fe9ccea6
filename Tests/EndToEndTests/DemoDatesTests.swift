import Foundation
import TestSupport
import Testing

/// `abctl report` after `abctl demo` reads the data as of the demo's end of observation, so it
/// prints the figures of the reports the demo wrote; `--until` and `ABCTL_NOW` still choose.
@Suite struct DemoDatesTests {
    @Test func reportAfterDemoMatchesTheDemosReports() async throws {
        // The demo `make demo` runs (shared with the other suites that need one), in a copy: the reports below write into it.
        let demo = try await ShippedDemo.run.value
        try #require(demo.output.status == 0, "\(demo.output.stderr)")
        let folder = try demo.copy(prefix: "abctl-demo-dates")
        // ABCTL_NOW is the shell's business; these runs must not inherit one.
        let noClock = ["ABCTL_NOW": ""]

        for experiment in ["chorus-trial-length", "chorus-paywall-copy"] {
            // The demo splits its reports by country and platform.
            let later = try await Abctl.run(["report", experiment, "--format", "markdown", "--out", "later", "--by", "country", "--by", "platform"],
                                            in: folder.path, environment: noClock)
            #expect(later.status == 0, "\(later.stderr)")
            let written = try String(contentsOfFile: "\(folder.path)/Reports/\(experiment).md", encoding: .utf8)
            let reported = try String(contentsOfFile: "\(folder.path)/later/\(experiment).md", encoding: .utf8)
            #expect(reported == written, "\(experiment): abctl report after abctl demo differs from Reports/")
        }

        // The as-of time is the recorded end of observation, not the clock; --until and ABCTL_NOW override it.
        func asOf(_ arguments: [String], _ environment: [String: String]) async throws -> String? {
            let r = try await Abctl.run(["report", "chorus-trial-length", "--format", "json"] + arguments, in: folder.path, environment: environment)
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["as_of"] as? String
        }
        let recorded = try #require(try await asOf([], noClock))
        // The story: 60 days of arrivals from the experiments' start (2026-11-02), 60 more observed.
        #expect(recorded == "2027-03-02T00:00:00Z")
        let now = "2027-06-01T00:00:00Z"
        #expect(try await asOf([], ["ABCTL_NOW": now]) == now)
        let until = try #require(try await asOf(["--until", "2026-11-20"], noClock))
        #expect(until.hasPrefix("2026-11-20"))
    }
}
