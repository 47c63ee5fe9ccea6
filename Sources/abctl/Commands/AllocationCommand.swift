import Allocation
import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation

/// `abctl allocation show [EXPERIMENT]` (a bandit's periods) and `abctl allocation update` (one
/// period boundary by hand, as `safeguards check` is one evaluation).
enum AllocationCommand {
    static let spec = CommandSpec(
        name: "allocation",
        abstract: "Show a bandit's allocation periods, or record the periods that are due.",
        subcommands: [show, update]
    )

    static let show = CommandSpec(
        name: "show",
        abstract: "Print each bandit's allocation periods.",
        discussion: """
        Print each bandit's periods: when each began, the weights in force, how they were set (first: the file's
          weights; burn_in: an arm has too few mature users yet; learned: each arm's chance of having the highest
          reward rate, floored at min_share; carried: a boundary passed with no server up, and the weights in force
          stayed) and the mature users and rewards they were computed from.
        """,
        arguments: [ArgumentSpec(name: "experiment", help: "A bandit's experiment id (default: every bandit).")],
        options: [
            .db,
            .experiments,
            .textOrJSON,
        ],
        run: runShow
    )

    static let update = CommandSpec(
        name: "update",
        abstract: "Record every bandit period that is due.",
        discussion: """
        Record every period that is due and not yet recorded (a server does this at each boundary under its
          lease); a period is never recorded twice.
        """,
        options: [
            .db,
            .experiments,
        ],
        settings: [.now],
        run: runUpdate
    )

    static func bandits(_ args: ParsedArguments, only: String?) throws -> [Experiment] {
        let catalog = try ExperimentFolder.load(args[.experiments])
        let bandits = catalog.experiments.filter(\.isBandit)
        guard let only else { return bandits }
        let e = try ExperimentArgument.resolve(only, in: catalog, command: args.command)
        guard e.isBandit else { throw CLIError.usage("experiment '\(only)' is not a bandit (it has no 'allocation')", command: args.command) }
        return [e]
    }

    static func runShow(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count <= 1 else { throw CLIError.usage("expected 'abctl allocation show [EXPERIMENT]'", command: args.command) }
        let experiment = args.positionals.first
        let bandits = try bandits(args, only: experiment)
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        let periods = try runtime { try store.allocationPeriods(experiment: experiment) }
        if args[.textOrJSON] == "json" {
            let body: JSONValue = .object(bandits.map { e in
                (e.id, .array(periods.filter { $0.experiment == e.id }.map(\.json)))
            })
            print(body.serialized())
            return .success
        }
        if bandits.isEmpty { print("no bandit experiment (none has 'allocation')") }
        for e in bandits {
            let mine = periods.filter { $0.experiment == e.id }
            print("\(e.id): \(Plural.count(mine.count, "period")) recorded, every \(format(e.allocation?.updateHours ?? 24)) h from \(e.start.map { Timestamp($0).rfc3339 } ?? "?")")
            for p in mine {
                let weights = p.weights.map { "\($0.variant) \(format($0.weight))" }.joined(separator: ", ")
                let basis = p.basis.isEmpty ? "" : "; from " + p.basis.map { "\($0.variant) \($0.rewards)/\($0.users)" }.joined(separator: ", ")
                print("  \(p.index) \(p.from.rfc3339) \(p.rule): \(weights)\(basis)")
            }
        }
        return .success
    }

    static func runUpdate(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("'update' takes no arguments", command: args.command) }
        let now = FixedClock.now(args) ?? Date()
        let bandits = try bandits(args, only: nil)
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        let written = try runtime { try store.withSafeguardLease { try AllocationUpdater.run(experiments: bandits, store: store, now: now) } }
        guard let written else {
            print("another process holds the lease and records the periods now")
            return .success
        }
        print(written.isEmpty ? "no period due: every running bandit's current period is recorded" : "recorded \(Plural.count(written.count, "period")):")
        for p in written {
            print("  \(p.experiment) \(p.index) \(p.from.rfc3339) \(p.rule): " + p.weights.map { "\($0.variant) \(format($0.weight))" }.joined(separator: ", "))
        }
        return .success
    }

    static func format(_ x: Double) -> String {
        let s = String(format: "%.4f", x)
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t
    }

    static func runtime<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CLIError { throw error } catch { throw CLIError.runtime("allocation failed: \(error)") }
    }
}
