import Foundation
import TestSupport
import Testing

/// `abctl help COMMAND` for every subcommand `abctl --help` lists: the usage line names every option
/// the OPTIONS section declares. Usage lines are generated from the declarations; the few written by
/// hand (alternative forms) are held to them here.
@Suite struct HelpUsageTests {
    @Test func everyUsageLineNamesEveryOption() async throws {
        let top = try await Abctl.run(["--help"])
        let listed = top.stdout.components(separatedBy: "SUBCOMMANDS:\n").last?
            .split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), let word = line.split(separator: " ").first, !line.contains("See '") else { return nil }
                return String(word)
            } ?? []
        #expect(listed.count >= 12, "\(top.stdout)")
        for command in listed {
            let help = try await Abctl.run(["help", command])
            #expect(help.status == 0, "\(command): \(help.stderr)")
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let usage = try #require(lines.first { $0.hasPrefix("USAGE: abctl \(command) ") }, "\(command): \(help.stdout)")
            let options = lines.drop { $0 != "OPTIONS:" }.dropFirst()
                .prefix { !$0.isEmpty }
                .compactMap { $0.hasPrefix("  --") ? $0.dropFirst(2).split(separator: " ").first.map(String.init) : nil }
            #expect(!options.isEmpty || command == "demo", "\(command) declares options")
            for option in options {
                #expect(usage.contains(option + " ") || usage.hasSuffix(option) || usage.contains(option + "]"),
                        "abctl \(command): the usage line does not name \(option): \(usage)")
            }
        }
    }

    /// Every environment setting a command reads is declared with its options, so its help lists it
    /// under ENVIRONMENT: the commands are read from their sources (`FixedClock.now` reads
    /// `ABCTL_NOW`; `environment["ABCTL_…"]` and `args.setting("ABCTL_…")` the others).
    @Test func everySettingACommandReadsIsInItsHelp() async throws {
        let folder = Abctl.packageRoot + "/Sources/abctl/Commands"
        var checked = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where file.hasSuffix("Command.swift") {
            let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            guard let nameRange = source.range(of: #"name: "[a-z-]+""#, options: .regularExpression) else { continue }
            let command = source[nameRange].dropFirst(7).dropLast()
            var read: Set<String> = source.contains("FixedClock.now(") ? ["ABCTL_NOW"] : []
            for pattern in [#"environment\["ABCTL_[A-Z_]+"\]"#, #"setting\("ABCTL_[A-Z_]+"\)"#] {
                var rest = source[...]
                while let r = rest.range(of: pattern, options: .regularExpression) {
                    let match = rest[r]
                    if let v = match.range(of: "ABCTL_[A-Z_]+", options: .regularExpression) { read.insert(String(match[v])) }
                    rest = rest[r.upperBound...]
                }
            }
            guard !read.isEmpty else { continue }
            let help = try await Abctl.run(["help", String(command)])
            let environment = help.stdout.components(separatedBy: "ENVIRONMENT:\n").dropFirst().first ?? ""
            let listed = environment.split(separator: "\n").compactMap { $0.hasPrefix("  ") ? $0.split(separator: " ").first.map(String.init) : nil }
            for variable in read.sorted() {
                #expect(listed.contains(variable), "abctl \(command) reads \(variable) but its help does not list it: \(help.stdout)")
            }
            checked += 1
        }
        #expect(checked >= 8, "the commands that read settings were found")
    }
}
