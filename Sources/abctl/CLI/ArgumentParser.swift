import ExperimentDefinitions

/// Parses `argv` against a `CommandSpec`, in the manner of swift-argument-parser:
/// `--name value`, `--name=value`, flags, `--` ends options, unknown options get a did-you-mean.
enum ArgumentParser {
    static func parse(_ args: [String], for spec: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments(command: spec.name)
        let byName = Dictionary(uniqueKeysWithValues: spec.options.map { ($0.name, $0) })
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
                if let guess = Spelling.closest(to: name, in: spec.options.map(\.name)) {
                    message += ". Did you mean '\(guess)'?"
                }
                throw CLIError.usage(message, command: spec.name)
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw CLIError.usage("'\(name)' takes no value", command: spec.name) }
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
                throw CLIError.usage("missing value for '\(name) <\(valueName)>'", command: spec.name)
            }
            if !option.choices.isEmpty && !option.choices.contains(value) {
                throw CLIError.usage(
                    "'\(value)' is not a valid value for '\(name)'; expected one of: \(option.choices.joined(separator: ", "))",
                    command: spec.name)
            }
            if !option.repeatable && parsed.values[name] != nil {
                throw CLIError.usage("'\(name)' given more than once", command: spec.name)
            }
            parsed.values[name, default: []].append(value)
        }
        return parsed
    }
}
