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
}
