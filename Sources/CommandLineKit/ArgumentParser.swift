/// Parses `argv` against a `CommandSpec`, in the manner of swift-argument-parser: `--name value`,
/// `--name=value`, flags, `--` ends options, unknown options get a did-you-mean. Then, in this one
/// place, absent options take their environment variable (an empty one counts as unset) or their
/// default, every value is checked against its option's type, choices and range, and required
/// options are enforced. `command` names the command in error hints (`safeguards check`; default
/// the spec's name); `suggest` gives the did-you-mean of an unknown option.
public enum ArgumentParser {
    public static func parse(_ args: [String], for spec: CommandSpec, command: String? = nil, environment: Environment = .process,
                             suggest: Suggester? = nil) throws -> ParsedArguments {
        let command = command ?? spec.name
        var parsed = ParsedArguments(command: command)
        var given: [String: [String]] = [:]
        let options = spec.options.map(\.spec)
        let byName = Dictionary(uniqueKeysWithValues: options.map { ($0.name, $0) })
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inlineValue: String? = nil
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            guard let option = byName[name] else {
                var message = "Unknown option '\(name)'"
                if let guess = suggest?(name, options.map(\.name)) {
                    message += ". Did you mean '\(guess)'?"
                }
                throw CLIError.usage(message, command: command)
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw CLIError.usage("'\(name)' takes no value", command: command) }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if i < args.count {
                value = args[i]
                i += 1
            } else {
                throw CLIError.usage("missing value for '\(name) <\(valueName)>'", command: command)
            }
            if !option.repeatable && given[name] != nil {
                throw CLIError.usage("'\(name)' given more than once", command: command)
            }
            given[name, default: []].append(value)
        }

        for setting in spec.settings {
            guard let value = environment[setting.variable] else { continue }
            if let problem = setting.problem(value) { throw CLIError.usage(problem, command: command) }
            parsed.settings[setting.variable] = value
        }

        for option in options where !option.isFlag {
            let texts: [String], source: ParsedArguments.Source
            if let fromCommandLine = given[option.name] {
                (texts, source) = (fromCommandLine, .commandLine)
            } else if let variable = option.environment, let fromEnvironment = environment[variable] {
                (texts, source) = ([fromEnvironment], .environment(variable))
            } else if let fallback = option.defaultValue {
                (texts, source) = ([fallback], .defaultValue)
            } else {
                if option.required { throw CLIError.usage("missing required option '\(option.name)'", command: command) }
                continue
            }
            parsed.values[option.name] = try texts.map { try typedValue($0, of: option, from: source, command: command) }
            parsed.sources[option.name] = source
        }

        if parsed.positionals.isEmpty, let first = spec.arguments.first,
           let stand = first.environment.flatMap({ environment[$0] }) ?? first.defaultValue {
            parsed.positionals = [stand]
        }
        return parsed
    }

    /// Checks one value against the option's choices, type and range.
    static func typedValue(_ text: String, of option: OptionSpec, from source: ParsedArguments.Source, command: String) throws -> ParsedArguments.Value {
        let origin = if case .environment(let variable) = source { " (from \(variable))" } else { "" }
        func usage(_ message: String) -> CLIError { .usage(message + origin, command: command) }
        if !option.choices.isEmpty && !option.choices.contains(text) {
            throw usage("'\(text)' is not a valid value for '\(option.name)'; expected one of: \(option.choices.joined(separator: ", "))")
        }
        switch option.type {
        case .string:
            return .string(text)
        case .integer(let range):
            guard let value = Int(text) else { throw usage("'\(option.name)' expects a whole number, got '\(text)'") }
            guard range.contains(value) else { throw usage("'\(option.name)' \(describe(range)), got \(value)") }
            return .integer(value)
        case .number(let range):
            guard let value = Double(text), value.isFinite else { throw usage("'\(option.name)' expects a number, got '\(text)'") }
            guard range.contains(value) else { throw usage("'\(option.name)' must be between \(range.lowerBound) and \(range.upperBound), got \(value)") }
            return .number(value)
        }
    }

    static func describe(_ range: ClosedRange<Int>) -> String {
        if range.upperBound == Int.max { return range.lowerBound == 1 ? "must be positive" : "must be at least \(range.lowerBound)" }
        return "must be between \(range.lowerBound) and \(range.upperBound)"
    }
}
