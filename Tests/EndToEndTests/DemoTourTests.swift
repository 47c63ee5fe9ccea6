import Foundation
import TestSupport
import Testing

/// `abctl demo` prints each step with the command that does it on its own (`   $ …`). Run in order
/// in a folder of their own, those commands print what the demo printed for each step and write
/// the same reports byte for byte: the tour shows a user what to type, not a paraphrase.
@Suite struct DemoTourTests {
    /// A printed command: its ABCTL_NOW and the words after `abctl` (the demo quotes no word here).
    static func parse(_ line: String) throws -> (environment: [String: String], arguments: [String]) {
        var words = line.split(separator: " ").map(String.init)
        var environment = ["ABCTL_NOW": ""]
        if let first = words.first, first.hasPrefix("ABCTL_NOW=") {
            environment["ABCTL_NOW"] = String(first.dropFirst("ABCTL_NOW=".count))
            words.removeFirst()
        }
        try #require(words.first == "abctl", "\(line)")
        return (environment, Array(words.dropFirst()))
    }

    /// The demo's output of step `n`: the indented lines after its command lines, unindented.
    static func output(of n: Int, in stdout: String) -> String {
        let lines = stdout.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("\(n). ") }) else { return "" }
        var out: [String] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("\(n + 1). ") || line.hasPrefix("Summary as of") { break }
            if line.hasPrefix("   $ ") { continue }
            out.append(line.hasPrefix("   ") ? String(line.dropFirst(3)) : line)
        }
        return out.joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    @Test func theToursCommandsDoWhatTheDemoDid() async throws {
        let demoFolder = TemporaryFolder(prefix: "abctl-tour-demo"), ownFolder = TemporaryFolder(prefix: "abctl-tour-own")
        for folder in [demoFolder, ownFolder] {
            try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
            try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        }
        // The shipped story with a harsher 7-day trial (70% Day-0 cancels), so its safeguard stops it
        // early even in a small story, and a tour whose simulation left the safeguards out would differ.
        let shipped = try String(contentsOfFile: demoFolder.path + "/Experiments/simulation/chorus-plus-truth.json", encoding: .utf8)
        let harsh = shipped.replacingOccurrences(of: #""trial-7d": { "trial_start": 0.39, "day0_cancel": 0.40 }"#,
                                                 with: #""trial-7d": { "trial_start": 0.39, "day0_cancel": 0.70 }"#)
        try #require(harsh != shipped, "the shipped truth's trial-7d line moved: update this test")
        for folder in [demoFolder, ownFolder] { _ = folder.write("harsh-truth.json", harsh) }
        let demo = try await Abctl.run(["demo", "--users", "20000", "--truth", "harsh-truth.json"], in: demoFolder.path, environment: ["ABCTL_NOW": ""])
        try #require(demo.status == 0, "\(demo.stdout)\(demo.stderr)")
        #expect(Self.output(of: 5, in: demo.stdout).hasPrefix("1 safeguard stop in force:\n  chorus-trial-length trial-7d"), "\(demo.stdout)")

        let commands = demo.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("   $ ") }.map { String($0.dropFirst(5)) }
        let verbs = try commands.map { try Self.parse($0).arguments.prefix(2).joined(separator: " ") }
        #expect(verbs == ["validate Experiments", "simulate --users", "report --by", "report --by", "report --by",
                          "forecast backtest", "safeguards check"], "\(commands)")

        // The report commands in a row (one per format) only read the store and write files of their own, so
        // they run side by side: each refits the forecasts, the dearest part of a report. The others run in order.
        var steps: [[String]] = []
        for command in commands {
            if try Self.parse(command).arguments.first == "report", let last = steps.last?.last, try Self.parse(last).arguments.first == "report" {
                steps[steps.count - 1].append(command)
            } else {
                steps.append([command])
            }
        }
        var ran: [String: String] = [:]
        let own = ownFolder.path
        for step in steps {
            let outputs = try await withThrowingTaskGroup(of: (Int, Abctl.Output).self) { group in
                for (i, command) in step.enumerated() {
                    let (environment, arguments) = try Self.parse(command)
                    group.addTask { (i, try await Abctl.run(arguments, in: own, environment: environment)) }
                }
                var outputs = [Abctl.Output?](repeating: nil, count: step.count)
                for try await (i, output) in group { outputs[i] = output }
                return outputs.compactMap { $0 }
            }
            for (command, r) in zip(step, outputs) {
                let arguments = try Self.parse(command).arguments
                // `safeguards check` exits 1 while a stop is in force, as it says.
                #expect(r.status == 0 || (arguments.first == "safeguards" && r.status == 1), "\(command): \(r.stderr)")
                ran[arguments[0], default: ""] += r.stdout
            }
        }
        #expect(ran["validate"]?.trimmingCharacters(in: .newlines) == Self.output(of: 1, in: demo.stdout))
        // The same story: every line of the simulation's summary but its timing.
        func story(_ text: String) -> String { text.components(separatedBy: "\n").filter { !$0.hasPrefix("events:") }.joined(separator: "\n") }
        #expect(story(ran["simulate"] ?? "").trimmingCharacters(in: .newlines) == story(Self.output(of: 2, in: demo.stdout)))
        // The check evaluates once more and prints its readings; the stops in force are the demo's.
        let stops = Self.output(of: 5, in: demo.stdout)
        #expect(ran["safeguards"]?.contains(stops) == true, "\(ran["safeguards"] ?? "") against \(stops)")
        #expect(ran["forecast"]?.trimmingCharacters(in: .newlines) == Self.output(of: 4, in: demo.stdout))
        #expect(Self.output(of: 3, in: demo.stdout).hasSuffix("Reports/index.html (the demo's own page)"))

        let written = try FileManager.default.contentsOfDirectory(atPath: demoFolder.path + "/Reports").filter { $0 != "index.html" }.sorted()
        // html, md and json per experiment file.
        let experiments = try FileManager.default.contentsOfDirectory(atPath: demoFolder.path + "/Experiments")
            .filter { $0.hasSuffix(".json") && !["schema.json", "products.json", "placements.json"].contains($0) }
        #expect(written.count == 3 * experiments.count && experiments.count >= 5, "\(written)")
        #expect(written == (try FileManager.default.contentsOfDirectory(atPath: ownFolder.path + "/Reports").sorted()))
        for name in written {
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(demoFolder.path)/Reports/\(name)"))
            let b = try? Data(contentsOf: URL(fileURLWithPath: "\(ownFolder.path)/Reports/\(name)"))
            #expect(a == b, "Reports/\(name): the tour's report command wrote other bytes than the demo")
        }
    }
}
