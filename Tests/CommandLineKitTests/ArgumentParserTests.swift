import Testing
@testable import CommandLineKit

extension OptionKeys {
    fileprivate static let db = OptionKey<String>("--db", value: "path", help: "The database.", environment: "ABCTL_DB", default: "abctl.sqlite")
    fileprivate static let port = OptionKey<Int>(required: "--port", value: "port", help: "TCP port.", range: 0...65535)
    fileprivate static let alpha = OptionKey<Double>("--alpha", value: "a", help: "Alpha.", range: 0...0.5, default: 0.05)
    fileprivate static let users = OptionKey<Int?>("--users", value: "n", help: "Users.", range: 1...Int.max, environment: "USERS")
    fileprivate static let format = OptionKey<String>("--format", value: "format", help: "Format.", choices: ["text", "json"], environment: "FORMAT", default: "text")
    fileprivate static let attr = OptionKey<[String]>("--attr", value: "key=value", help: "An attribute.")
    fileprivate static let verbose = OptionKey<Bool>(flag: "--verbose", help: "Say more.")
    fileprivate static let out = OptionKey<String?>("--out", value: "dir", help: "A folder.")
    fileprivate static let ratio = OptionKey<Double?>("--ratio", value: "r", help: "A ratio.")
}

@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(
        name: "report", abstract: "A report.", synopsis: "[<experiment>] [options]",
        arguments: [ArgumentSpec(name: "path", help: "Folders.", environment: "ABCTL_EXPERIMENTS", default: "Experiments")],
        options: [.db, .port, .alpha, .users, .format, .attr, .verbose, .out, .ratio],
        run: { _ in .success })

    /// A stand-in for the tool's did-you-mean: a candidate with the same letters in another order.
    static let suggest: Suggester = { word, candidates in candidates.first { $0.sorted() == word.sorted() } }

    func parse(_ args: [String], _ environment: [String: String] = [:]) throws -> ParsedArguments {
        try ArgumentParser.parse(args, for: Self.spec, environment: Environment(environment), suggest: Self.suggest)
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
        #expect(args[.db] == "abctl.sqlite")
        #expect(args.source(of: .db) == .defaultValue)
        #expect(args[.alpha] == 0.05)
        #expect(args[.users] == nil)
        #expect(args.source(of: .users) == nil)
        #expect(args[.format] == "text")
        #expect(args[.out] == nil && args[.ratio] == nil)
        #expect(args[.attr] == [])
        #expect(args[.verbose] == false)
    }

    @Test func theEnvironmentWinsOverTheDefaultAndTheCommandLineOverBoth() throws {
        let fromEnvironment = try parse(["--port", "1"], ["ABCTL_DB": "ci.sqlite"])
        #expect(fromEnvironment[.db] == "ci.sqlite")
        #expect(fromEnvironment.source(of: .db) == .environment("ABCTL_DB"))
        let fromFlag = try parse(["--port", "1", "--db", "flag.sqlite"], ["ABCTL_DB": "ci.sqlite"])
        #expect(fromFlag[.db] == "flag.sqlite")
        #expect(fromFlag.source(of: .db) == .commandLine)
        #expect(try parse(["--port", "1"], ["USERS": "7"])[.users] == 7)
    }

    @Test func anEmptyVariableMeansUnset() throws {
        let args = try parse(["--port", "1"], ["ABCTL_DB": "", "USERS": "", "FORMAT": "", "ABCTL_EXPERIMENTS": ""])
        #expect(args[.db] == "abctl.sqlite")
        #expect(args.source(of: .db) == .defaultValue)
        #expect(args[.users] == nil)
        #expect(args[.format] == "text")
        #expect(args.positionals == ["Experiments"])
    }

    @Test func valuesAreTyped() throws {
        let args = try parse(["--port=8080", "--alpha", "0.1", "--users", "12", "--ratio", "2", "--out", "r"])
        let port: Int = args[.port], alpha: Double = args[.alpha], users: Int? = args[.users]
        #expect(port == 8080 && alpha == 0.1 && users == 12)
        #expect(args[.ratio] == 2.0)
        #expect(args[.out] == "r")
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
        #expect(args[.attr] == ["a=1", "b=2"])
        #expect(args[.verbose])
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
            options: [OptionKey<String?>("--db", value: "path", help: "The database."),
                      OptionKey<[String]>("--by", value: "dimension", help: "Split."),
                      OptionKey<String>(required: "--users", value: "n", help: "Users."),
                      OptionKey<Bool>(flag: "--strict", help: "Warnings fail.")]
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
