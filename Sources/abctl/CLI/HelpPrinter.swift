/// Help text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
enum HelpPrinter {
    static func overview(commands: [CommandSpec]) -> String {
        var out = """
        OVERVIEW: A/B experiments for subscription-app paywalls: validate, assign, ingest, report, serve.

        USAGE: abctl <subcommand> [options]

        OPTIONS:
          -h, --help              Show help information.
          --version               Show the version.

        SUBCOMMANDS:

        """
        for c in commands {
            out += "  " + pad(c.name, 22) + c.abstract + "\n"
        }
        out += "\n  See 'abctl help <subcommand>' for detailed help.\n"
        return out
    }

    static func help(for spec: CommandSpec) -> String {
        var out = "OVERVIEW: \(spec.discussion.isEmpty ? spec.abstract : spec.discussion)\n\n"
        out += "USAGE: abctl \(spec.name) \(spec.usage)\n"
        if !spec.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for a in spec.arguments { out += "  " + pad("<\(a.name)>", 24) + a.help + "\n" }
        }
        out += "\nOPTIONS:\n"
        for o in spec.options {
            var label = o.name
            if let v = o.valueName { label += " <\(v)>" }
            var text = o.help
            if !o.choices.isEmpty { text += " (values: \(o.choices.joined(separator: ", ")))" }
            if let env = o.environment { text += " (env: \(env))" }
            out += "  " + pad(label, 24) + text + "\n"
        }
        out += "  " + pad("-h, --help", 24) + "Show help information.\n"
        return out
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + "\n" + String(repeating: " ", count: width + 2) : s + String(repeating: " ", count: width - s.count)
    }
}
