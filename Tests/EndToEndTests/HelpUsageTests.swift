import Foundation
import TestSupport
import Testing

/// `abctl help COMMAND` for every subcommand `abctl --help` lists, and `abctl help COMMAND SUB` for
/// every subcommand a command's help lists: the usage line names every option the OPTIONS section
/// declares. Usage lines are generated from the declarations; the few written by hand (alternative
/// forms) are held to them here.
@Suite struct HelpUsageTests {
    /// The names a help text lists under SUBCOMMANDS:.
    static func subcommands(_ help: String) -> [String] {
        guard help.contains("SUBCOMMANDS:\n") else { return [] }
        return help.components(separatedBy: "SUBCOMMANDS:\n").last?
            .split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), let word = line.split(separator: " ").first, !line.contains("See '") else { return nil }
                return String(word)
            } ?? []
    }

    @Test func everyUsageLineNamesEveryOption() async throws {
        let top = try await Abctl.run(["--help"])
        let listed = Self.subcommands(top.stdout)
        #expect(listed.count >= 12, "\(top.stdout)")
        var commands: [[String]] = []
        for name in listed {
            let help = try await Abctl.run(["help", name])
            let subcommands = Self.subcommands(help.stdout)
            commands += subcommands.isEmpty ? [[name]] : subcommands.map { [name, $0] }
        }
        #expect(commands.contains(["safeguards", "check"]) && commands.contains(["allocation", "update"]) && commands.contains(["forecast", "backtest"]))
        for words in commands {
            let command = words.joined(separator: " ")
            let help = try await Abctl.run(["help"] + words)
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

    /// A subcommand's help is the same three ways and has the sections of swift-argument-parser's
    /// layout; its parent's help lists it under SUBCOMMANDS.
    @Test(arguments: [["safeguards", "check"], ["safeguards", "reset"], ["allocation", "show"], ["allocation", "update"],
                      ["forecast", "backtest"], ["copy", "check"]])
    func aSubcommandHasItsOwnHelp(_ words: [String]) async throws {
        let a = try await Abctl.run(["help"] + words), b = try await Abctl.run(words + ["--help"]), c = try await Abctl.run(words + ["-h"])
        #expect(a.status == 0 && b.status == 0 && c.status == 0)
        #expect(a.stdout == b.stdout && b.stdout == c.stdout)
        #expect(a.stdout.hasPrefix("OVERVIEW: "), "\(a.stdout)")
        #expect(a.stdout.contains("\nUSAGE: abctl \(words.joined(separator: " ")) "), "\(a.stdout)")
        #expect(a.stdout.contains("\nOPTIONS:\n") && !a.stdout.contains("SUBCOMMANDS:"), "\(a.stdout)")
        let parent = try await Abctl.run(["help", words[0]]), parentFlag = try await Abctl.run([words[0], "--help"])
        #expect(parent.status == 0 && parent.stdout == parentFlag.stdout)
        #expect(parent.stdout.contains("\nUSAGE: abctl \(words[0]) <subcommand>\n"), "\(parent.stdout)")
        #expect(Self.subcommands(parent.stdout).contains(words[1]), "\(parent.stdout)")
    }

    @Test func theResetSubcommandDeclaresItsArguments() async throws {
        let help = try await Abctl.run(["safeguards", "reset", "--help"])
        #expect(help.stdout.contains("USAGE: abctl safeguards reset <experiment> <arm> [--by <who>] [--db <path>]\n"), "\(help.stdout)")
        #expect(help.stdout.contains("ARGUMENTS:\n  <experiment>"), "\(help.stdout)")
    }

    @Test func anUnknownSubcommandOrOptionIsAUsageErrorWithADidYouMean() async throws {
        let typo = try await Abctl.run(["safeguards", "chek"])
        #expect(typo.status == 2 && typo.stdout.isEmpty)
        #expect(typo.stderr == "abctl: error: Unknown subcommand 'chek'. Did you mean 'check'?\nSee 'abctl safeguards --help'.\n", "\(typo.stderr)")
        let option = try await Abctl.run(["allocation", "show", "--formt", "json"])
        #expect(option.status == 2)
        #expect(option.stderr == "abctl: error: Unknown option '--formt'. Did you mean '--format'?\nSee 'abctl allocation show --help'.\n", "\(option.stderr)")
        let elsewhere = try await Abctl.run(["safeguards", "reset", "e", "arm", "--format", "json"])
        #expect(elsewhere.status == 2 && elsewhere.stderr.contains("Unknown option '--format'"), "reset has no --format: \(elsewhere.stderr)")
        let bare = try await Abctl.run(["forecast"])
        #expect(bare.status == 2 && bare.stdout.contains("SUBCOMMANDS:\n  backtest"), "\(bare.stdout)")
    }

    /// Every environment setting a command reads is declared with its options, so its help lists it
    /// under ENVIRONMENT (of one of its subcommands, when it has some): the commands are read from
    /// their sources (`FixedClock.now` reads `ABCTL_NOW`; `environment["ABCTL_…"]` and the
    /// `SettingSpec("ABCTL_…")` a command declares for `args.setting` the others).
    @Test func everySettingACommandReadsIsInItsHelp() async throws {
        let folder = Abctl.packageRoot + "/Sources/abctl/Commands"
        var checked = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where file.hasSuffix("Command.swift") {
            let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            // The command, then its subcommands when it has some (`name: "check"` after `name: "safeguards"`).
            var names: [String] = []
            var scan = source[...]
            while let r = scan.range(of: #"CommandSpec\(\s*name: "[a-z-]+""#, options: .regularExpression) {
                let declaration = scan[r]
                if let n = declaration.range(of: #""[a-z-]+""#, options: .regularExpression) { names.append(String(declaration[n].dropFirst().dropLast())) }
                scan = scan[r.upperBound...]
            }
            guard let command = names.first else { continue }
            var read: Set<String> = source.contains("FixedClock.now(") ? ["ABCTL_NOW"] : []
            for pattern in [#"environment\["ABCTL_[A-Z_]+"\]"#, #"SettingSpec\("ABCTL_[A-Z_]+""#] {
                var rest = source[...]
                while let r = rest.range(of: pattern, options: .regularExpression) {
                    let match = rest[r]
                    if let v = match.range(of: "ABCTL_[A-Z_]+", options: .regularExpression) { read.insert(String(match[v])) }
                    rest = rest[r.upperBound...]
                }
            }
            guard !read.isEmpty else { continue }
            var listed: [String] = []
            var helps = ""
            for words in names.count == 1 ? [[command]] : names.dropFirst().map({ [command, $0] }) {
                let help = try await Abctl.run(["help"] + words)
                helps += help.stdout
                let environment = help.stdout.components(separatedBy: "ENVIRONMENT:\n").dropFirst().first ?? ""
                listed += environment.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
            }
            for variable in read.sorted() {
                #expect(listed.contains(variable), "abctl \(command) reads \(variable) but its help does not list it: \(helps)")
            }
            checked += 1
        }
        #expect(checked >= 8, "the commands that read settings were found")
    }
}
