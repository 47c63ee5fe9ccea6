import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Safeguards

/// `abctl safeguards check` (one evaluation, for teams without a server) and
/// `abctl safeguards reset EXPERIMENT ARM`.
enum SafeguardsCommand {
    static let spec = CommandSpec(
        name: "safeguards",
        abstract: "Evaluate safeguards once, or lift a safeguard stop.",
        subcommands: [check, reset]
    )

    static let check = CommandSpec(
        name: "check",
        abstract: "Evaluate every running experiment's safeguards once; exit 1 while a stop is in force.",
        discussion: """
        Run one safeguard evaluation of every running experiment with 'safeguards': each watched metric of each
          arm against the control, with the always-valid interval on mature users. A harmful arm is stopped (a
          record in the store that every server honours). Exits 1 while any stop is in force, so cron and CI notice.
        """,
        options: [
            .db,
            .experiments,
            .textOrJSON,
        ],
        settings: [.now],
        run: runCheck
    )

    static let reset = CommandSpec(
        name: "reset",
        abstract: "Lift an arm's safeguard stop.",
        discussion: "Lift the safeguard stop of an experiment's arm, recording who (--by, else $USER) and when.",
        arguments: [ArgumentSpec(name: "experiment", help: "The experiment id.", arity: .one),
                    ArgumentSpec(name: "arm", help: "The stopped arm's variant key.", arity: .one)],
        options: [
            .by,
            .db,
        ],
        settings: [.now],
        run: runReset
    )

    static func runCheck(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("'check' takes no arguments", command: args.command) }
        let now = FixedClock.now(args) ?? Date()
        let catalog = try ExperimentFolder.load(args[.experiments])
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        let (outcome, inForce) = try runtime {
            let outcome = try store.withSafeguardLease { try SafeguardEvaluator.run(experiments: catalog.experiments, store: store, now: now) }
            return (outcome, try store.safeguardStopsInForce())
        }
        let failed = try runtime { try store.notifications(experiment: nil).filter { $0.state == .failed } }
        if args[.textOrJSON] == "json" {
            let body: JSONValue = .object([
                ("evaluated", .bool(outcome != nil)),
                ("experiments_evaluated", .array((outcome?.evaluated ?? []).map(JSONValue.string))),
                ("without_safeguards", .array((outcome?.withoutSafeguards ?? []).map(JSONValue.string))),
                ("findings", .array((outcome?.findings ?? []).map(json))),
                ("new_stops", .array((outcome?.newStops ?? []).map(\.json))),
                ("in_force", .array(inForce.map(\.json))),
                ("failed_notifications", .array(failed.map(failedJSON))),
            ])
            print(body.serialized())
        } else {
            if let outcome {
                // Say what was looked at: a folder where nothing is watched must not read as all clear.
                print("evaluated \(Plural.count(outcome.evaluated.count, "experiment"))\(outcome.evaluated.isEmpty ? "" : ": " + outcome.evaluated.joined(separator: ", "))")
                if !outcome.withoutSafeguards.isEmpty {
                    print("\(Plural.count(outcome.withoutSafeguards.count, "running experiment")) without safeguards: \(outcome.withoutSafeguards.joined(separator: ", "))")
                }
            } else {
                print("another process is evaluating safeguards now; showing the stops in force")
            }
            for f in outcome?.findings ?? [] { print(SafeguardText.finding(f)) }
            for s in outcome?.newStops ?? [] { print("NEW: " + SafeguardText.stop(s)) }
            print(inForceText(inForce), terminator: "")
            print(failedText(failed), terminator: "")
        }
        return inForce.isEmpty ? .success : .checkFailed
    }

    /// The stops in force, as `check` prints them (the demo prints them the same way).
    static func inForceText(_ inForce: [SafeguardStop]) -> String {
        var out = (inForce.isEmpty ? "no safeguard stop in force" : "\(inForce.count) safeguard stop\(inForce.count == 1 ? "" : "s") in force:") + "\n"
        for s in inForce { out += "  \(s.experiment) \(s.arm): \(s.metric), since \(s.stoppedAt.rfc3339) (\(s.action.rawValue))\n" }
        return out
    }

    /// The notifications given up as failed (nothing when none), as `check` prints them.
    static func failedText(_ failed: [OutboxNotification]) -> String {
        guard !failed.isEmpty else { return "" }
        var out = "\(failed.count) notification\(failed.count == 1 ? "" : "s") failed:\n"
        for n in failed {
            out += "  \(n.experiment) \(n.type) at \(n.at.rfc3339), \(n.attempts) tr\(n.attempts == 1 ? "y" : "ies"): \(n.lastError ?? "unknown error")\n"
        }
        return out
    }

    static func failedJSON(_ n: OutboxNotification) -> JSONValue {
        .object([("id", .string(n.id)), ("type", .string(n.type)), ("experiment", .string(n.experiment)), ("at", .string(n.at.rfc3339)),
                 ("attempts", .number(Double(n.attempts))), ("error", n.lastError.map(JSONValue.string) ?? .null),
                 ("failed_at", n.finishedAt.map { .string($0.rfc3339) } ?? .null)])
    }

    static func runReset(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count == 2 else { throw CLIError.usage("expected 'abctl safeguards reset EXPERIMENT ARM'", command: args.command) }
        let experiment = args.positionals[0], arm = args.positionals[1]
        let who = args[.by] ?? "unknown"
        let now = FixedClock.now(args) ?? Date()
        let store = try StoreOpener.open(args[.db], .init(mustExist: true))
        defer { store.close() }
        let lifted = try runtime { try store.resetSafeguardStops(experiment: experiment, arm: arm, by: who, at: Timestamp(now)) }
        guard lifted > 0 else {
            FileHandle.standardError.write(Data("abctl: error: no safeguard stop in force for \(experiment) \(arm)\n".utf8))
            return .checkFailed
        }
        print("lifted the safeguard stop of \(experiment) \(arm) (by \(who) at \(Timestamp(now).rfc3339))")
        return .success
    }

    static func json(_ f: SafeguardEvaluator.Finding) -> JSONValue {
        .object([("experiment", .string(f.experiment)), ("arm", .string(f.arm)), ("metric", .string(f.metric)),
                 ("arm_exposed", .number(Double(f.armExposed))), ("harmful", .bool(f.harmful)),
                 ("figures", f.figures?.json ?? .null), ("skipped", f.skipped.map(JSONValue.string) ?? .null)])
    }

    static func runtime<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CLIError { throw error } catch { throw CLIError.runtime("safeguards failed: \(error)") }
    }
}

private extension OptionKeys {
    static let by = OptionKey<String?>("--by", value: "who", help: "Who lifts the stop.", environment: "USER")
}
