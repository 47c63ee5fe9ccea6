import Foundation
import TestSupport
import Testing

/// Every command in the README's `sh` blocks runs here, as a reader would type it, in a folder
/// where `abctl demo` has run (as `make demo` leaves the repository): `make demo` and `make test`
/// are the two the Makefile runs; `abctl serve` starts a server that the `curl` lines then ask.
@Suite(.timeLimit(.minutes(5))) struct ReadmeCommandsTests {
    static func readmeCommands() throws -> [String] {
        let text = try String(contentsOfFile: Abctl.packageRoot + "/README.md", encoding: .utf8)
        var commands: [String] = [], inShell = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShell = line == "```sh"
                continue
            }
            let command = line.trimmingCharacters(in: .whitespaces)
            if inShell && !command.isEmpty && !command.hasPrefix("#") { commands.append(command) }
        }
        return commands
    }

    @Test func everyCommandInTheReadmeRuns() async throws {
        let commands = try Self.readmeCommands()
        // The README must show each of the three users' first commands, and the two make targets.
        for start in ["make demo", "make test", "abctl report", "abctl serve", "curl", "abctl validate"] {
            #expect(commands.contains { $0.hasPrefix(start) }, "the README shows no '\(start)' command")
        }

        // The folder `make demo` leaves (the demo shared with the other suites that need one), copied: the commands write into it.
        let demo = try await ShippedDemo.run.value
        try #require(demo.output.status == 0, "\(demo.output.stderr)")
        let folder = try demo.copy(prefix: "abctl-readme")
        let binFolder = URL(fileURLWithPath: Abctl.path).deletingLastPathComponent().path
        let environment = ["PATH": binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]

        var server: ServeProcess?
        var readmePort = ""
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            switch words.first {
            case "make":
                // The Makefile's own targets: `make demo` runs abctl demo (as above), `make test` this suite.
                let target = words.dropFirst().first ?? ""
                #expect(["demo", "test"].contains(target), "\(command)")
                let makefile = try String(contentsOfFile: Abctl.packageRoot + "/Makefile", encoding: .utf8)
                #expect(makefile.contains("\n\(target):"), "\(command)")
            case "abctl" where words.dropFirst().first == "serve":
                // In the folder the demo left; the port the README names becomes one the system picks.
                var arguments = Array(words.dropFirst(2))
                if let i = arguments.firstIndex(of: "--port") {
                    readmePort = arguments[i + 1]
                    arguments.removeSubrange(i...(i + 1))
                }
                server = try await ServeProcess.start(arguments: arguments, database: folder.path + "/abctl.sqlite")
            default:
                var line = command
                if let server, !readmePort.isEmpty { line = line.replacingOccurrences(of: "127.0.0.1:\(readmePort)", with: "127.0.0.1:\(server.port)") }
                let run = try await ChildProcess.run("/bin/sh", ["-c", line], environment: environment, in: folder.path)
                #expect(run.status == 0, "\(command)\n\(run.stdout)\n\(run.stderr)")
                #expect(!run.stdout.isEmpty, "\(command) printed nothing")
            }
        }
        #expect(server != nil)
    }

    /// docs/Guide.md's `sh` commands and the files of its `json PATH` blocks, in order.
    static func guideSteps() throws -> [(file: String?, text: String)] {
        let text = try String(contentsOfFile: Abctl.packageRoot + "/docs/Guide.md", encoding: .utf8)
        var steps: [(String?, String)] = [], block: (kind: String, file: String?)?, body: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let open = block {
                    if open.kind == "json", let file = open.file { steps.append((file, body.joined(separator: "\n") + "\n")) }
                    block = nil
                } else {
                    let words = line.dropFirst(3).split(separator: " ").map(String.init)
                    block = (words.first ?? "", words.dropFirst().first)
                    body = []
                }
                continue
            }
            guard let open = block else { continue }
            if open.kind == "sh" {
                let command = line.trimmingCharacters(in: .whitespaces)
                if !command.isEmpty && !command.hasPrefix("#") { steps.append((nil, command)) }
            } else {
                body.append(line)
            }
        }
        return steps
    }

    /// The guide, as a reader follows it: an empty folder, its files written where it says, each
    /// command run with the built abctl on the PATH; `abctl serve` starts a server on the guide's
    /// folder that the `curl` lines then ask.
    @Test func theGuideRunsInAnEmptyFolder() async throws {
        let steps = try Self.guideSteps()
        let commands = steps.filter { $0.file == nil }.map(\.text)
        for start in ["abctl validate", "abctl simulate", "abctl report", "abctl serve", "curl -sf http://127.0.0.1:8080/v1/assign",
                      "curl -sf http://127.0.0.1:8080/v1/events", "curl -sf http://127.0.0.1:8080/v1/experiments/"] {
            #expect(commands.contains { $0.hasPrefix(start) }, "the guide shows no '\(start)' command")
        }
        #expect(steps.contains { $0.file?.hasPrefix("Experiments/") == true && $0.file != "Experiments/products.json" })

        let folder = TemporaryFolder(prefix: "abctl-guide")
        let binFolder = URL(fileURLWithPath: Abctl.path).deletingLastPathComponent().path
        // The shell's ABCTL_ settings would point the commands elsewhere; empty counts as unset.
        var environment = ["PATH": binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        for key in ["ABCTL_EXPERIMENTS", "ABCTL_DB", "ABCTL_NOW", "ABCTL_API_KEYS"] { environment[key] = "" }

        var server: ServeProcess?
        var guidePort = ""
        for (file, text) in steps {
            if let file {
                let path = folder.path + "/" + file
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                continue
            }
            let words = text.split(separator: " ").map(String.init)
            if words.first == "abctl", words.dropFirst().first == "serve" {
                var arguments = Array(words.dropFirst(2))
                if let i = arguments.firstIndex(of: "--port") {
                    guidePort = arguments[i + 1]
                    arguments.removeSubrange(i...(i + 1))
                }
                // The guide's folder: its experiments in place of the shipped ones, its database.
                let experiments = folder.path + "/Experiments"
                server = try await ServeProcess.start(arguments: arguments, database: folder.path + "/abctl.sqlite") { served in
                    for name in try FileManager.default.contentsOfDirectory(atPath: served) {
                        try FileManager.default.removeItem(atPath: served + "/" + name)
                    }
                    for name in try FileManager.default.contentsOfDirectory(atPath: experiments) {
                        try FileManager.default.copyItem(atPath: experiments + "/" + name, toPath: served + "/" + name)
                    }
                }
                continue
            }
            var line = text
            if let server, !guidePort.isEmpty { line = line.replacingOccurrences(of: "127.0.0.1:\(guidePort)", with: "127.0.0.1:\(server.port)") }
            let run = try await ChildProcess.run("/bin/sh", ["-c", line], environment: environment, in: folder.path)
            #expect(run.status == 0, "\(text)\n\(run.stdout)\n\(run.stderr)")
            #expect(!run.stdout.isEmpty, "\(text) printed nothing")
            if text.contains("\"placement\": \"onboarding_end\"") && text.contains("/v1/assign") {
                // The guide names the variant this user gets.
                #expect(run.stdout.contains("\"variant\":\"trial-7d\"") || run.stdout.contains("\"variant\": \"trial-7d\""), "\(run.stdout)")
            }
        }
        #expect(server != nil)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/Reports/onboarding-trial.html"))
    }
}
