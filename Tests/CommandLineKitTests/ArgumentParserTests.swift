import Testing
@testable import CommandLineKit

@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(
        name: "report", abstract: "A report.", synopsis: "[<experiment>] [options]",
        arguments: [ArgumentSpec(name: "path", help: "Folders.", environment: "ABCTL_EXPERIMENTS", default: "Experiments")],
        options: [
            OptionSpec(name: "--db", valueName: "path", help: "The database.", environment: "ABCTL_DB", default: "abctl.sqlite"),
            OptionSpec(name: "--port", valueName: "port", help: "TCP port.", type: .integer(0...65535), required: true),
            OptionSpec(name: "--alpha", valueName: "a", help: "Alpha.", type: .number(0...0.5), default: "0.05"),
            OptionSpec(name: "--users", valueName: "n", help: "Users.", environment: "USERS", type: .positiveInteger),
            OptionSpec(name: "--format", valueName: "format", help: "Format.", choices: ["text", "json"], environment: "FORMAT", default: "text"),
            OptionSpec(name: "--attr", valueName: "key=value", help: "An attribute.", repeatable: true),
            OptionSpec(name: "--verbose", help: "Say more."),
        ],
        run: { _ in .success })

    func parse(_ args: [String], _ environment: [String: String] = [:]) throws -> ParsedArguments {
        try ArgumentParser.parse(args, for: Self.spec, environment: Environment(environment))
    }

    func usageMessage(_ args: [String], _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try parse(args, environment)
            return nil
        } catch CLIError.usage(let message, _) {
            return message
        } catch {
            return "\(error)"
        }
    }

    @Test func defaultsApplyWhenTheOptionIsAbsent() throws {
        let args = try parse(["--port", "8080"])
        #expect(args.value("--db") == "abctl.sqlite")
        #expect(args.source("--db") == .defaultValue)
        #expect(try args.double("--alpha") == 0.05)
        #expect(args.value("--users") == nil)
        #expect(args.value("--format") == "text")
    }

    @Test func theEnvironmentWinsOverTheDefaultAndTheCommandLineOverBoth() throws {
        let fromEnvironment = try parse(["--port", "1"], ["ABCTL_DB": "ci.sqlite"])
        #expect(fromEnvironment.value("--db") == "ci.sqlite")
        #expect(fromEnvironment.source("--db") == .environment("ABCTL_DB"))
        let fromFlag = try parse(["--port", "1", "--db", "flag.sqlite"], ["ABCTL_DB": "ci.sqlite"])
        #expect(fromFlag.value("--db") == "flag.sqlite")
        #expect(fromFlag.source("--db") == .commandLine)
    }

    @Test func anEmptyVariableMeansUnset() throws {
        let args = try parse(["--port", "1"], ["ABCTL_DB": "", "USERS": "", "FORMAT": "", "ABCTL_EXPERIMENTS": ""])
        #expect(args.value("--db") == "abctl.sqlite")
        #expect(args.source("--db") == .defaultValue)
        #expect(args.value("--users") == nil)
        #expect(args.value("--format") == "text")
        #expect(args.positionals == ["Experiments"])
    }

    @Test func valuesAreTyped() throws {
        let args = try parse(["--port=8080", "--alpha", "0.1", "--users", "12"])
        #expect(try args.int("--port") == 8080)
        #expect(try args.required(int: "--port") == 8080)
        #expect(try args.double("--alpha") == 0.1)
        #expect(try args.int("--users") == 12)
        #expect(try args.double("--users") == 12)
        #expect(args.value("--port") == "8080")
    }

    @Test(arguments: [
        (["--port", "http"], [:], "'--port' expects a whole number, got 'http'"),
        (["--port", "70000"], [:], "'--port' must be between 0 and 65535, got 70000"),
        (["--port", "1", "--users", "0"], [:], "'--users' must be positive, got 0"),
        (["--port", "1", "--alpha", "nan"], [:], "'--alpha' expects a number, got 'nan'"),
        (["--port", "1", "--alpha", "0.9"], [:], "'--alpha' must be between 0.0 and 0.5, got 0.9"),
        (["--port", "1"], ["USERS": "many"], "'--users' expects a whole number, got 'many' (from USERS)"),
        (["--port", "1"], ["FORMAT": "xml"], "'xml' is not a valid value for '--format'; expected one of: text, json (from FORMAT)"),
        ([], [:], "missing required option '--port'"),
        (["--port", "1", "--port", "2"], [:], "'--port' given more than once"),
        (["--port"], [:], "missing value for '--port <port>'"),
        (["--port", "1", "--verbose=yes"], [:], "'--verbose' takes no value"),
        (["--port", "1", "--formta", "json"], [:], "Unknown option '--formta'. Did you mean '--format'?"),
    ] as [([String], [String: String], String)])
    func badValuesAreUsageErrors(_ args: [String], _ environment: [String: String], _ message: String) {
        #expect(usageMessage(args, environment) == message)
    }

    @Test func repeatableOptionsKeepEveryValueAndFlagsAreSets() throws {
        let args = try parse(["--port", "1", "--attr", "a=1", "--verbose", "--attr", "b=2", "--", "--not-an-option"])
        #expect(args.all("--attr") == ["a=1", "b=2"])
        #expect(args.flag("--verbose"))
        #expect(args.positionals == ["--not-an-option"])
    }

    @Test func theFirstArgumentTakesItsEnvironmentOrDefaultWhenNoneIsGiven() throws {
        #expect(try parse(["--port", "1"]).positionals == ["Experiments"])
        #expect(try parse(["--port", "1"], ["ABCTL_EXPERIMENTS": "ci/experiments"]).positionals == ["ci/experiments"])
        #expect(try parse(["a", "b", "--port", "1"], ["ABCTL_EXPERIMENTS": "ci/experiments"]).positionals == ["a", "b"])
    }

    @Test func usageIsGeneratedFromTheDeclarationsUnlessASynopsisIsWritten() {
        let spec = CommandSpec(
            name: "report", abstract: "A report.",
            arguments: [ArgumentSpec(name: "experiment", help: "An id.")],
            options: [OptionSpec(name: "--db", valueName: "path", help: "The database."),
                      OptionSpec(name: "--by", valueName: "dimension", help: "Split.", repeatable: true),
                      OptionSpec(name: "--users", valueName: "n", help: "Users.", required: true),
                      OptionSpec(name: "--strict", help: "Warnings fail.")]
        ) { _ in .success }
        #expect(spec.usage == "[<experiment>] [--db <path>] [--by <dimension> ...] --users <n> [--strict]")
        #expect(ArgumentSpec(name: "file", help: "", arity: .one).usage == "<file>")
        #expect(ArgumentSpec(name: "path", help: "", arity: .many).usage == "[<path> ...]")
        var written = spec
        written.synopsis = "check | reset <arm>"
        #expect(written.usage == "check | reset <arm>")
        #expect(HelpPrinter(tool: "abctl", overview: "").help(for: spec).contains("USAGE: abctl report [<experiment>] [--db <path>]"))
    }

    @Test func helpShowsEachDefaultAndVariableFromTheDeclaration() {
        let text = HelpPrinter(tool: "abctl", overview: "").help(for: Self.spec)
        #expect(text.contains("USAGE: abctl report [<experiment>] [options]\n"))
        #expect(text.contains("  --db <path>             The database. (default: abctl.sqlite) (env: ABCTL_DB)\n"))
        #expect(text.contains("  --format <format>       Format. (values: text, json) (default: text) (env: FORMAT)\n"))
        #expect(text.contains("  <path>                  Folders. (default: Experiments) (env: ABCTL_EXPERIMENTS)\n"))
        #expect(text.contains("  --verbose               Say more.\n"))
        // Ranges come from the declared type, as the parser checks them.
        #expect(text.contains("  --port <port>           TCP port. (between 0 and 65535)\n"))
        #expect(text.contains("  --alpha <a>             Alpha. (between 0 and 0.5) (default: 0.05)\n"))
        #expect(text.contains("  --users <n>             Users. (at least 1) (env: USERS)\n"))
        #expect(text.contains("  --attr <key=value>      An attribute.\n"))
        #expect(text.hasSuffix("  -h, --help              Show help information.\n"))
    }
}
