import Assignment
import CommandLineKit
import ExperimentDefinitions
import Foundation
import PaywallCopy

/// `abctl assign`: which variant each user gets in each experiment.
enum AssignCommand {
    static let spec = CommandSpec(
        name: "assign",
        abstract: "Assign users to variants; one NDJSON line per (user, experiment).",
        discussion: """
        Assign users to variants with GrowthBook-compatible hashing, one line per (user, experiment):
          user_id, experiment, variant (null when out), in_experiment, bucket (the user's hash) and reason
          (\(Assignment.Reason.allCases.map(\.rawValue).joined(separator: ", "))).
          Ids stream through from --users, one a line ('-' reads standard input). --attr values 'true' and
          'false' are booleans, numbers are numbers, anything else is a string; app_version is always a string
          (a version: 2.3 is 2.3.0). No store is consulted here,
          so sticky records do not apply and paused experiments assign nobody.
          With --placement, one line per user with what that placement of placements.json shows:
          user_id, placement, audience, show_paywall, offering, experiment, variant, in_experiment, reason
          (the experiment's, or audience, or default) and holdouts.
          With --paywall, each JSON line adds the paywall shown as /v1/assign resolves it for a request with no
          variables or signals: plans, discount_text and prices in the storefront of --attr country=CC
          (products.json storefronts; no country, or one without a storefront, is the default storefront).
        """,
        synopsis: "(--user <id> | --users <file>) [--experiments <dir>] [--experiment <id> ... | --placement <id>] [--attr <key=value> ...] [--paywall] [--format <format>]",
        options: [
            .user,
            .usersFile,
            .experiments,
            .onlyExperiments,
            .placement,
            .attributes,
            .paywall,
            .assignFormat,
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else {
            throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: "assign")
        }
        let user = args[.user], usersFile = args[.usersFile]
        guard (user == nil) != (usersFile == nil) else {
            throw CLIError.usage("give exactly one of '--user <id>' or '--users <file>'", command: "assign")
        }
        if let user, user.isEmpty { throw CLIError.usage("'--user' needs a non-empty id", command: "assign") }
        if let user, let refusal = UserID(user).refusal { throw CLIError.usage("'--user' \(refusal)", command: "assign") }
        let attributes = try parseAttributes(args[.attributes])
        let format = AssignmentPrinter.Format(rawValue: args[.assignFormat]) ?? .json

        let withPaywall = args[.paywall]
        if withPaywall && format != .json { throw CLIError.usage("'--paywall' needs '--format json'", command: "assign") }
        let catalog = try ExperimentFolder.load(args[.experiments])
        // The storefront is the request's country: one per run, as --attr is.
        let country: String? = if case .string(let c)? = attributes["country"] { c } else { nil }
        let currency = catalog.products.storefrontCurrency(country: country)
        func resolved(_ paywall: Paywall?) -> JSONValue {
            paywall.map { PaywallResolver.resolve($0, products: catalog.products, request: PaywallRequest(), currency: currency).json } ?? .null
        }
        let assigner: Assigner
        do {
            assigner = try Assigner(catalog: catalog)
        } catch {
            throw CLIError.runtime("cannot prepare experiments: \(error)")
        }
        if let placement = args[.placement] {
            guard args[.onlyExperiments].isEmpty else {
                throw CLIError.usage("give '--placement' or '--experiment', not both", command: "assign")
            }
            guard assigner.placement(placement) != nil else {
                let known = assigner.placements.map(\.id)
                throw CLIError.usage("no placement '\(placement)'" + (known.isEmpty ? " (the folder has no placements.json)" : "; placements: \(known.joined(separator: ", "))"), command: "assign")
            }
            var out = OutputBuffer()
            func emit(_ userID: UserID) throws {
                guard let answer = assigner.assign(userID: userID, attributes: attributes, placement: placement) else { return }
                let holdouts = assigner.holdoutAssignments(userID: userID, attributes: attributes)
                out.append(Array(placementLine(userID, answer, attributes: attributes, holdouts: holdouts, format: format,
                                               paywall: withPaywall ? resolved(answer.paywall) : nil).utf8))
                try out.flushIfFull()
            }
            let refused = try forEachUser(user: user, usersFile: usersFile, emit)
            try out.flush()
            return refused > 0 ? .checkFailed : .success
        }
        let wanted = args[.onlyExperiments]
        for id in wanted where assigner.experiment(id) == nil {
            throw CLIError.usage(ExperimentCatalog.unknownExperimentMessage(id, known: assigner.experiments.map(\.id)), command: "assign")
        }
        let indices = assigner.experiments.indices.filter { wanted.isEmpty || wanted.contains(assigner.experiments[$0].id) }

        let paywalls = withPaywall ? assigner.experiments.map { e in (e.model?.variants ?? []).map { resolved($0.paywall) } } : nil
        let printer = AssignmentPrinter(format: format, experiments: assigner.experiments, paywalls: paywalls)
        var out = OutputBuffer()
        var results: [AssignmentDecision] = []
        func emit(_ userID: UserID) throws {
            assigner.decide(userID: userID, attributes: attributes, into: &results)
            printer.write(userPrefix: printer.userPrefix(userID.text), attributes: attributes, results: results, indices: indices, to: &out)
            try out.flushIfFull()
        }
        let refused = try forEachUser(user: user, usersFile: usersFile, emit)
        try out.flush()
        return refused > 0 ? .checkFailed : .success
    }

    /// Calls `emit` for `user`, or for each non-blank line of `usersFile`; a line whose id is over
    /// 256 bytes is skipped and named on stderr as `LINE: user_id: reason`, as `ingest`
    /// names a rejected line. Returns how many were skipped.
    static func forEachUser(user: String?, usersFile: String?, _ emit: (UserID) throws -> Void) throws -> Int {
        var refused = 0
        if let user {
            try emit(UserID(user))
        } else if let usersFile {
            var reader = try InputLines.open(usersFile)
            defer { reader.close() }
            var number = 0
            while let line = try reader.next() {
                number += 1
                if line.isEmpty { continue }
                let id = UserID(line)
                if let refusal = id.refusal {
                    refused += 1
                    FileHandle.standardError.write(Data("\(number): user_id: \(refusal)\n".utf8))
                    continue
                }
                try emit(id)
            }
        }
        return refused
    }

    /// One `--placement` line: the fields of `/v1/assign`'s placement answer, the paywall's offering for its body.
    static func placementLine(_ userID: UserID, _ a: PlacementAssignment, attributes: Attributes, holdouts: [Assignment],
                              format: AssignmentPrinter.Format, paywall resolved: JSONValue? = nil) -> String {
        let paywall = a.paywall
        let variant = a.assignment?.variantKey
        if format == .text {
            return [userID.text, a.placement.id, a.audience?.name ?? "-", a.audience?.experimentIndex.flatMap { _ in a.assignment?.experimentID } ?? "-",
                    variant ?? "-", a.reason, paywall?.offering ?? "-"].joined(separator: " ") + "\n"
        }
        var members: [(String, JSONValue)] = [
            ("user_id", .string(userID.text)),
            ("placement", .string(a.placement.id)),
            ("audience", a.audience.map { .string($0.name) } ?? .null),
            ("show_paywall", .bool(paywall != nil)),
            ("offering", paywall.map { .string($0.offering) } ?? .null),
            ("experiment", a.assignment.map { .string($0.experimentID) } ?? .null),
            ("variant", variant.map(JSONValue.string) ?? .null),
            ("in_experiment", .bool(a.assignment?.inExperiment ?? false)),
            ("reason", .string(a.reason)),
        ]
        if let assignment = a.assignment, assignment.reason == .targeting {
            members.append(("targeting_attribute", assignment.experiment.targeting.failedAttribute(attributes).map(JSONValue.string) ?? .null))
        }
        if let resolved { members.append(("paywall", resolved)) }
        members.append(("holdouts", .array(holdouts.map { .object([("experiment", .string($0.experimentID)), ("variant", $0.variantKey.map(JSONValue.string) ?? .null)]) })))
        let line: JSONValue = .object(members)
        return line.serialized() + "\n"
    }

    /// `key=value` pairs: `true`/`false` become booleans, JSON-style numbers become numbers,
    /// everything else is a string; `app_version` is always a string. A repeated key keeps its last value.
    static func parseAttributes(_ pairs: [String]) throws -> Attributes {
        var attributes: Attributes = [:]
        for pair in pairs {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw CLIError.usage("'--attr' expects key=value, got '\(pair)'", command: "assign")
            }
            let key = String(pair[..<eq]), text = String(pair[pair.index(after: eq)...])
            // A version is text: `2.3` is version 2.3.0, and `2.10` is not `2.1`.
            attributes[key] = key == "app_version" ? .string(text) : attributeValue(text)
        }
        return attributes
    }

    static func attributeValue(_ text: String) -> JSONValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            if isNumber(text), let d = Double(text), d.isFinite { return .number(d) }
            return .string(text)
        }
    }

    /// A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. So `2.1.0`, `007`,
    /// `0x1F`, `inf` and `nan` stay strings.
    static func isNumber(_ text: String) -> Bool {
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int { let s = i; while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }; return i - s }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return false }
        if b[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < b.count, b[i] == UInt8(ascii: ".") { i += 1; if digits() == 0 { return false } }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { return false }
        }
        return i == b.count
    }
}

private extension OptionKeys {
    static let user = OptionKey<String?>("--user", value: "id", help: "One user id.")
    static let usersFile = OptionKey<String?>("--users", value: "file", help: "A file of user ids, one a line; '-' for standard input.")
    static let onlyExperiments = OptionKey<[String]>("--experiment", value: "id", help: "Only this experiment (repeatable; default: all).")
    static let placement = OptionKey<String?>("--placement", value: "id", help: "What this placement of placements.json shows, one line per user.")
    static let attributes = OptionKey<[String]>("--attr", value: "key=value", help: "A request attribute for targeting and conditions (repeatable).")
    static let paywall = OptionKey<Bool>(flag: "--paywall", help: "Add the paywall shown, priced for the --attr country's storefront (json only).")
    static let assignFormat = OptionKey<String>("--format", value: "format", help: "json: NDJSON; text: 'user experiment variant|- reason bucket'.",
                                                choices: ["json", "text"], default: "json")
}
