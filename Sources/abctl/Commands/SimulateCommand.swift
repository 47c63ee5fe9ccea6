import Assignment
import CommandLineKit
import Events
import ExperimentDefinitions
import Foundation
import Simulation

/// `abctl simulate`: synthetic users with known true rates, through the real assignment and store.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Simulate users with known true rates into the store.",
        discussion: """
        Simulate N users arriving over D days: each is assigned by the real Assigner, sees the resolved
          paywall (an exposure with its copy source), then starts trials, cancels (on Day 0 or later), converts,
          renews and asks for refunds by the true rates of its variant, and every event is written through the
          real store. The same seed gives the same events; running it twice stores nothing new.
          The truth file is JSON: {"default": {rates}, "experiments": {EXPERIMENT: {VARIANT: {rates}}},
          "ai_copy": {...}, "population": {...}} with rates trial_start, day0_cancel, later_cancel, convert,
          direct_purchase, annual_share, renewal, refund, exposure_loss, and renewal_churn {"alpha", "beta",
          "tenure_factor"}: each payer's churn probability per period drawn from Beta(alpha, beta) (docs/Forecast.md). Variants the file does not
          name behave by its default rates; without a file every variant behaves the same (an A/A test).
          Any rates object may carry "by": {ATTRIBUTE: {VALUE: {rates}}}, rates for users with that attribute value
          (a higher trial start rate in one country, an effect that differs by platform); "population" gives the
          shares of platform, country, language, app_version, new_user, "placement" and any other "attributes", which
          every exposure carries (docs/Reports.md#simulation). The shipped Chorus+ story is
          Experiments/simulation/chorus-plus-truth.json.
        """,
        usage: "--users <n> [--experiments <dir>] [--db <path>] [--seed <s>] [--truth <file>] [--days <d>] [--tail-days <t>]",
        options: [
            OptionSpec(name: "--users", valueName: "n", help: "How many users arrive.", type: .positiveInteger, required: true),
            .experiments,
            .database,
            OptionSpec(name: "--seed", valueName: "s", help: "Random seed.", type: .integer(0...Int.max), default: "1"),
            OptionSpec(name: "--truth", valueName: "file", help: "True rates per variant (default: every variant the same)."),
            OptionSpec(name: "--days", valueName: "d", help: "Days over which users arrive.", type: .integer(1...1000), default: "14"),
            OptionSpec(name: "--tail-days", valueName: "t", help: "Days after the last arrival that events are still observed (renewals, a year's revenue).",
                       type: .integer(0...1000), default: "10"),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: "simulate") }
        let users = try args.required(int: "--users"), days = try args.required(int: "--days")
        let seed = UInt64(try args.required(int: "--seed"))
        let catalog = try ExperimentFolder.load(args.required("--experiments"))
        let truth = try loadTruth(args.value("--truth"))
        let summary = try simulate(catalog: catalog, truth: truth, users: users, seed: seed, days: days,
                                   tailDays: try args.required(int: "--tail-days"), db: args.required("--db"))
        print(describe(summary), terminator: "")
        return .success
    }

    static func loadTruth(_ path: String?, command: String = "simulate") throws -> Truth {
        guard let path else { return Truth() }
        do { return try Truth.load(path: path) } catch { throw CLIError.usage(error.message, command: command) }
    }

    /// Runs the simulation into the database at `db`, with a progress bar on a terminal. With
    /// `safeguards`, safeguards are evaluated every `check_minutes` of the story and their stops honoured.
    static func simulate(catalog: ExperimentDefinitions.ExperimentCatalog, truth: Truth, users: Int, seed: UInt64, days: Int, tailDays: Int = 10,
                         safeguards: Bool = false, db: String) throws -> (Simulator.Summary, TimeInterval) {
        // Simulated events acknowledge nobody, so a commit need not wait for the disk (a crash loses only a rerun).
        let store = try StoreOpener.open(db, .init(durable: false))
        defer { store.close() }
        let assigner: Assigner
        do { assigner = try Assigner(catalog: catalog) } catch { throw CLIError.runtime("cannot build the assigner: \(error)") }
        let simulator = Simulator(catalog: catalog, assigner: assigner, truth: truth,
                                  options: Simulator.Options(users: users, seed: seed, days: days, tailDays: tailDays))
        let progress = ProgressBar(total: users, label: "simulating")
        let began = Date()
        let summary: Simulator.Summary
        do {
            summary = try simulator.run(write: { try store.appendAndWait($0) },
                                        checkpoints: safeguards ? StorySafeguards.checkpoints(catalog: catalog, store: store) : nil,
                                        progress: { progress.update($0) })
        } catch {
            throw CLIError.runtime("simulation failed: \(error)")
        }
        progress.finish()
        return (summary, Date().timeIntervalSince(began))
    }

    static func describe(_ result: (Simulator.Summary, TimeInterval)) -> String {
        let (s, seconds) = result
        var out = "simulated \(s.users) users arriving \(RFC3339.format(s.start)) to \(RFC3339.format(s.observedUntil)) (observed until)\n"
        for experiment in s.exposed.keys.sorted() {
            let variants = s.exposed[experiment]!.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            out += "  \(experiment): \(variants)\n"
        }
        out += "events: \(s.events) (stored \(s.stored), duplicate \(s.duplicates)) in \(String(format: "%.1f", seconds)) s\n"
        return out
    }
}
