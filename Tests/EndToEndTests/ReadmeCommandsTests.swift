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

        let folder = TemporaryFolder(prefix: "abctl-readme")
        try FileManager.default.createDirectory(atPath: folder.path + "/Experiments", withIntermediateDirectories: true)
        try Abctl.copyShippedExperiments(to: folder.path + "/Experiments")
        let demo = try await Abctl.run(["demo", "--users", "3000"], in: folder.path)
        try #require(demo.status == 0, "\(demo.stderr)")
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
}
