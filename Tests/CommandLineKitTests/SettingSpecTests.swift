import CommandLineKit
import Testing

/// Environment settings are declared beside the options: shown in help, and a bad value is a
/// usage error naming the variable, never a silent default.
@Suite struct SettingSpecTests {
    static let spec = CommandSpec(
        name: "ingest", abstract: "x",
        settings: [SettingSpec("ABCTL_NOW", .checked { $0.count == 20 ? nil : "ABCTL_NOW is not a time: '\($0)'" }, help: "A fixed clock."),
                   SettingSpec("ABCTL_CACHE_MIB", .integer(minimum: 1), help: "Cache in MiB."),
                   SettingSpec("ABCTL_SECRET", .secret, help: "A secret.")],
        run: { _ in .success })

    func parse(_ environment: [String: String]) throws -> ParsedArguments {
        try ArgumentParser.parse([], for: Self.spec, environment: Environment(environment))
    }

    @Test(arguments: [
        (["ABCTL_CACHE_MIB": "64"], true), (["ABCTL_CACHE_MIB": "0"], false), (["ABCTL_CACHE_MIB": "lots"], false),
        (["ABCTL_NOW": "2026-12-01T00:00:00Z"], true), (["ABCTL_NOW": "2026-12-01"], false), (["ABCTL_NOW": ""], true),
        (["ABCTL_SECRET": "anything at all"], true),
    ])
    func badValuesAreUsageErrorsNamingTheVariable(environment: [String: String], accepted: Bool) throws {
        do {
            let parsed = try parse(environment)
            #expect(accepted, "\(environment) was accepted")
            for (variable, value) in environment where !value.isEmpty {
                let setting = try #require(Self.spec.settings.first { $0.variable == variable })
                #expect(parsed.setting(setting) == value)
            }
        } catch let error as CLIError {
            #expect(!accepted, "\(environment): \(error)")
            guard case .usage(let message, _) = error else { Issue.record("\(error)"); return }
            #expect(message.contains(environment.keys.first!), "\(message)")
        }
    }

    @Test func helpListsTheSettings() {
        let help = HelpPrinter(tool: "abctl", overview: "").help(for: Self.spec)
        #expect(help.contains("ENVIRONMENT:\n  ABCTL_NOW"))
        #expect(help.contains("ABCTL_CACHE_MIB") && help.contains("Cache in MiB."))
    }
}
