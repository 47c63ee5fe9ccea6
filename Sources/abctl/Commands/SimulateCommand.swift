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
          direct_purchase, annual_share, renewal, refund, exposure_loss, billing_issue (a charge that fails when due),
          billing_recovery (a failed charge recovered inside the grace), uncancel (a cancel undone), and renewal_churn {"alpha", "beta",
          "tenure_factor"}: each payer's churn probability per period drawn from Beta(alpha, beta) (docs/Forecast.md). Variants the file does not
          name behave by its default rates; without a file every variant behaves the same (an A/A test).
          Any rates object may carry "by": {ATTRIBUTE: {VALUE: {rates}}}, rates for users with that attribute value
          (a higher trial start rate in one country, an effect that differs by platform); "population" gives the
          shares of platform, country, language, app_version, new_user, "placement" and any other "attributes", which
          every exposure carries (docs/Reports.md#simulation). The shipped Chorus+ story is
          Experiments/simulation/chorus-plus-truth.json.
          A user with a placement (population.placement) is routed as the app routes it: the answer of
          /v1/assign's placement form, one exposure for the placement when that answer puts it in an
          experiment, and behaviour by the paywall it showed.
          Users arrive over --days from the latest start of the running experiments and are followed
          --tail-days more, but no event is written after the present (ABCTL_NOW, else the clock) unless
          --until names the end of observation. With --safeguards, the experiments' safeguards are evaluated
          every check_minutes of the story, as a running server evaluates them, and a stopped arm's later users get
          the control's paywall (what 'abctl demo' does).
        """,
        options: [
            .users,
            .experiments,
            .db,
            .seed,
            .truth,
            .days,
            .tailDays,
            .until,
            .safeguards,
        ],
        settings: [.now],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(args.positionals[0])'", command: "simulate") }
        let users = args[.users], days = args[.days]
        let seed = UInt64(args[.seed])
        let catalog = try ExperimentFolder.load(args[.experiments])
        let truth = try loadTruth(args[.truth])
        try checkPlacements(truth, catalog)
        var until: Date?
        if let text = args[.until] {
            guard let date = RFC3339.parse(text) else { throw CLIError.usage("--until is not an RFC 3339 time: '\(text)'", command: "simulate") }
            until = date
        }
        let present = FixedClock.now(args) ?? Date()
        let summary = try simulate(catalog: catalog, truth: truth, users: users, seed: seed, days: days,
                                   tailDays: args[.tailDays], until: until, present: present,
                                   safeguards: args[.safeguards], db: args[.db])
        print(describe(summary), terminator: "")
        return .success
    }

    static func loadTruth(_ path: String?, command: String = "simulate") throws -> Truth {
        guard let path else { return Truth() }
        do { return try Truth.load(path: path) } catch { throw CLIError.usage(error.message, command: command) }
    }

    /// A truth's placements must be the folder's: a user is routed by its placement's answer.
    static func checkPlacements(_ truth: Truth, _ catalog: ExperimentDefinitions.ExperimentCatalog, command: String = "simulate") throws {
        let known = Set(catalog.placements.map(\.id))
        for (placement, _) in truth.population.placement where !known.contains(placement) {
            throw CLIError.usage("the truth's population.placement names '\(placement)', which the experiments folder does not have"
                                 + (known.isEmpty ? " (no placements.json)" : "; placements: \(known.sorted().joined(separator: ", "))"), command: command)
        }
    }

    /// Runs the simulation into the database at `db`, with a progress bar on a terminal.
    ///
    /// Observation ends at `until` when given; else `tailDays` after the last arrival, or at
    /// `present` when that comes first (no event is written in the future). Nil `present`: the
    /// whole window (the demo, whose dates are fixed). With `safeguards`, safeguards are evaluated
    /// every `check_minutes` of the story and their stops honoured.
    static func simulate(catalog: ExperimentDefinitions.ExperimentCatalog, truth: Truth, users: Int, seed: UInt64, days: Int, tailDays: Int = 10,
                         until: Date? = nil, present: Date? = nil, safeguards: Bool = false, db: String) throws -> (Simulator.Summary, TimeInterval) {
        let assigner: Assigner
        do { assigner = try Assigner(catalog: catalog) } catch { throw CLIError.runtime("cannot build the assigner: \(error)") }
        var options = Simulator.Options(users: users, seed: seed, days: days, tailDays: tailDays, until: until)
        if until == nil, let present {
            let window = Simulator(catalog: catalog, assigner: assigner, truth: truth, options: options)
            if present < window.observedUntil { options.until = present }
        }
        let simulator = Simulator(catalog: catalog, assigner: assigner, truth: truth, options: options)
        guard simulator.observesAnyone else {
            let end = until == nil ? "the present, \(RFC3339.format(simulator.observedUntil))" : "--until, \(RFC3339.format(simulator.observedUntil))"
            throw CLIError.runtime("nothing to simulate: observation ends at \(end), before any of the \(users) users arrives "
                                   + "(arrivals from \(RFC3339.format(simulator.start)), the latest start of the running experiments); "
                                   + "pass a later --until (or ABCTL_NOW) to observe them. Nothing was written.")
        }
        // Simulated events acknowledge nobody, so a commit need not wait for the disk (a crash loses only a rerun).
        let store = try StoreOpener.open(db, .init(durable: false))
        defer { store.close() }
        let progress = ProgressBar(total: users, label: "simulating")
        let began = Date()
        let summary: Simulator.Summary
        do {
            summary = try simulator.run(write: { try store.appendAndWait($0) },
                                        checkpoints: safeguards ? StorySafeguards.checkpoints(catalog: catalog, store: store) : nil,
                                        allocation: StoryAllocation.allocation(catalog: catalog, store: store, simulator: simulator),
                                        progress: { progress.update($0) })
        } catch {
            throw CLIError.runtime("simulation failed: \(error)")
        }
        progress.finish()
        // A report on this store reads it as of where the story ends (when no `--until` or
        // `ABCTL_NOW` names another moment), until real events arrive (the store then forgets
        // it). A rerun that stored nothing new leaves the record as it is, so real events
        // ingested since keep counting.
        if summary.stored > 0 {
            do { try store.recordObservedUntil(Timestamp(simulator.observedUntil)) } catch {
                throw CLIError.runtime("cannot record where the simulation's observation ends: \(error)")
            }
        }
        return (summary, Date().timeIntervalSince(began))
    }

    static func describe(_ result: (Simulator.Summary, TimeInterval)) -> String {
        let (s, seconds) = result
        var out = "simulated \(s.users) users arriving \(RFC3339.format(s.start)) to \(RFC3339.format(s.arrivalsEnd))\n"
        out += "events observed until \(RFC3339.format(s.observedUntil))"
        out += s.arrived < s.users ? " (\(s.arrived) of the users arrived by then; --until observes later)\n" : "\n"
        for experiment in s.exposed.keys.sorted() {
            let variants = s.exposed[experiment]!.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            out += "  \(experiment): \(variants)\n"
        }
        out += "events: \(s.events) (stored \(s.stored), duplicate \(s.duplicates)) in \(String(format: "%.1f", seconds)) s\n"
        return out
    }
}

private extension OptionKeys {
    static let users = OptionKey<Int>(required: "--users", value: "n", help: "How many users arrive.", range: 1...Int.max)
    static let seed = OptionKey<Int>("--seed", value: "s", help: "Random seed.", range: 0...Int.max, default: 1)
    static let truth = OptionKey<String?>("--truth", value: "file", help: "True rates per variant (default: every variant the same).")
    static let days = OptionKey<Int>("--days", value: "d", help: "Days over which users arrive.", range: 1...1000, default: 14)
    static let tailDays = OptionKey<Int>("--tail-days", value: "t", help: "Days after the last arrival that events are still observed (renewals, a year's revenue).",
                                         range: 0...1000, default: 10)
    static let until = OptionKey<String?>("--until", value: "time",
        help: "End of observation (RFC 3339), even in the future (default: --tail-days after the last arrival, or the present if sooner).")
    static let safeguards = OptionKey<Bool>(flag: "--safeguards", help: "Evaluate safeguards every check_minutes of the story and honour their stops.")
}
