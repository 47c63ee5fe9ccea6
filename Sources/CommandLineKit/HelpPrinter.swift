/// Help text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
/// An option's choices, range, default and environment variable come from its declaration.
public struct HelpPrinter: Sendable {
    public var tool: String
    public var overview: String

    public init(tool: String, overview: String) {
        self.tool = tool
        self.overview = overview
    }

    public func overview(commands: [CommandSpec]) -> String {
        var out = """
        OVERVIEW: \(overview)

        USAGE: \(tool) <subcommand> [options]

        OPTIONS:
          -h, --help              Show help information.
          --version               Show the version.

        SUBCOMMANDS:

        """
        out += Self.list(commands)
        out += "\n  See '\(tool) help <subcommand>' for detailed help.\n"
        return out
    }

    /// The help of a command; `path` is how it is reached (`["safeguards", "check"]`), its name when nil.
    public func help(for spec: CommandSpec, path: [String]? = nil) -> String {
        let command = (path ?? [spec.name]).joined(separator: " ")
        var out = "OVERVIEW: \(spec.discussion.isEmpty ? spec.abstract : spec.discussion)\n\n"
        out += "USAGE: \(tool) \(command) \(spec.usage)\n"
        if !spec.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for a in spec.arguments {
                out += "  " + Self.pad("<\(a.name)>", 24) + Self.annotated(a.help, default: a.defaultValue, environment: a.environment) + "\n"
            }
        }
        out += "\nOPTIONS:\n"
        for o in spec.options.map(\.spec) {
            var label = o.name
            if let v = o.valueName { label += " <\(v)>" }
            var text = o.help
            if !o.choices.isEmpty { text += " (values: \(o.choices.joined(separator: ", ")))" }
            // The range the parser holds the value to, from the same declaration.
            if let range = o.type.rangeDescription { text += " (\(range))" }
            out += "  " + Self.pad(label, 24) + Self.annotated(text, default: o.defaultValue, environment: o.environment) + "\n"
        }
        out += "  " + Self.pad("-h, --help", 24) + "Show help information.\n"
        if !spec.settings.isEmpty {
            out += "\nENVIRONMENT:\n"
            for s in spec.settings { out += "  " + Self.pad(s.variable, 24) + s.help + "\n" }
        }
        if !spec.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n" + Self.list(spec.subcommands)
            out += "\n  See '\(tool) help \(command) <subcommand>' for detailed help.\n"
        }
        return out
    }

    static func list(_ commands: [CommandSpec]) -> String {
        commands.map { "  " + pad($0.name, 22) + $0.abstract + "\n" }.joined()
    }

    static func annotated(_ text: String, default value: String?, environment: String?) -> String {
        var out = text
        if let value { out += " (default: \(value))" }
        if let environment { out += " (env: \(environment))" }
        return out
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + "\n" + String(repeating: " ", count: width + 2) : s + String(repeating: " ", count: width - s.count)
    }
}
