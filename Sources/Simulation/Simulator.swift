import Assignment
import Events
import ExperimentDefinitions
import Foundation
import PaywallCopy
import Statistics

/// Synthetic users with known true rates, assigned by the real `Assigner` and written through the real store.
///
/// Users arrive uniformly over `days` from `start`; each draws attributes and onboarding signals from
/// the truth's population, is assigned, sees the resolved paywall (an exposure with its copy source)
/// and then behaves by its variant's true rates. Events later than `observedUntil` are not written, as
/// in a real store read before the future happens. Each user draws from its own random stream, so a
/// seed gives the same events however the run is batched.
///
/// A user the truth gives a placement (`population.placement`) is routed as the app routes it: the
/// answer of `/v1/assign`'s placement form (`Assigner.assign(placement:at:)`, the same resolution
/// the server uses), one exposure for the placement when the answer puts the user in an
/// experiment (beside the holdout arms the answer lists, as the app logs them), and behaviour by
/// the paywall it showed: an arm's rates, or the default rates under a fixed paywall, the
/// placement's default or none. Users without a placement get every experiment that takes them.
public struct Simulator: Sendable {
    public struct Options: Sendable {
        public var users: Int
        public var seed: UInt64
        public var days: Int
        /// When users start arriving; defaults to the latest start among running experiments.
        public var start: Date?
        /// How long after the last arrival events are still observed, so trials can finish.
        public var tailDays: Int
        /// When observation ends, if not `tailDays` after the last arrival (the CLI passes the
        /// present, so nothing is written in the future unless asked).
        public var until: Date?

        public init(users: Int, seed: UInt64 = 1, days: Int = 14, start: Date? = nil, tailDays: Int = 10, until: Date? = nil) {
            self.users = users
            self.seed = seed
            self.days = days
            self.start = start
            self.tailDays = tailDays
            self.until = until
        }
    }

    /// What a run did.
    public struct Summary: Sendable {
        public var users = 0
        /// Experiment → variant → exposed users (exposures written).
        public var exposed: [String: [String: Int]] = [:]
        public var events = 0
        public var stored = 0
        public var duplicates = 0
        public var start = Date()
        /// When the last user arrives (arrivals are uniform over [start, arrivalsEnd)).
        public var arrivalsEnd = Date()
        public var observedUntil = Date()
        /// Users who arrived before `observedUntil` (the others left no event).
        public var arrived = 0
    }

    let catalog: ExperimentDefinitions.ExperimentCatalog
    /// The stops in force swap in as the story goes (`run` with checkpoints).
    var assigner: Assigner
    /// The same experiments with no global holdout: what a held-out user would have been shown
    /// (the control's paywall of the experiment that would have taken them).
    let withoutHoldouts: Assigner?
    let truth: Truth
    let options: Options
    public let start: Date
    public let arrivalsEnd: Date
    public let observedUntil: Date

    public init(catalog: ExperimentDefinitions.ExperimentCatalog, assigner: Assigner, truth: Truth, options: Options) {
        self.catalog = catalog
        self.assigner = assigner
        withoutHoldouts = assigner.holdouts.isEmpty ? nil
            : Assigner(experiments: assigner.experiments.filter { !$0.isHoldout }, placements: assigner.placements)
        self.truth = truth
        self.options = options
        let starts = catalog.experiments.filter { $0.status == .running }.compactMap(\.start)
        start = options.start ?? starts.max() ?? Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86400).rounded(.down) * 86400 - Double(options.days + options.tailDays) * 86400)
        arrivalsEnd = start.addingTimeInterval(Double(options.days) * 86400)
        observedUntil = options.until ?? start.addingTimeInterval(Double(options.days + options.tailDays) * 86400)
    }

    /// Moments of the story at which the caller looks at what has been written so far and answers
    /// the safeguard stops in force then, so a stop made during the story changes what later
    /// arrivals are shown, as a server honours it.
    public struct Checkpoints {
        /// Simulated time between two looks (an experiment's `check_minutes`).
        public var every: TimeInterval
        /// Called at each look, once everyone who arrived before it is written; answers the stops in force
        /// by experiment id (an experiment not named has none) and whether to look again (nothing is
        /// left to stop: the stops stay and the rest of the story is written in large batches).
        public var look: (Date) throws -> (stops: [String: ArmStops], again: Bool)

        public init(every: TimeInterval, look: @escaping (Date) throws -> (stops: [String: ArmStops], again: Bool)) {
            self.every = every
            self.look = look
        }
    }

    /// A bandit's period boundaries during the story: at each, once everyone who arrived
    /// before it is written, `update` records the period (as a server's lease holder would) and answers
    /// every bandit's periods, which later arrivals are drawn with.
    public struct Allocation {
        /// Offsets from the story's start, ascending.
        public var boundaries: [TimeInterval]
        public var update: (Date) throws -> [String: [BanditPeriod]]

        public init(boundaries: [TimeInterval], update: @escaping (Date) throws -> [String: [BanditPeriod]]) {
            self.boundaries = boundaries
            self.update = update
        }
    }

    /// Generates every user's events and hands them to `write` in batches of about `batchSize`.
    /// With `checkpoints`, users are simulated in order of arrival and each look sees every user who
    /// arrived before it; each user's events are the same as without, until a stop changes their arm.
    public func run(batchSize: Int = 20_000, write: ([Event]) throws -> AppendResult, checkpoints: Checkpoints? = nil,
                    allocation: Allocation? = nil, progress: (Int) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        summary.start = start
        summary.arrivalsEnd = arrivalsEnd
        summary.observedUntil = observedUntil
        var batch: [Event] = []
        batch.reserveCapacity(batchSize + 64)
        /// Writes what the batch holds and counts it.
        func flush() throws {
            guard !batch.isEmpty else { return }
            summary.events += batch.count
            let r = try write(batch)
            summary.stored += r.stored
            summary.duplicates += r.duplicates
            batch.removeAll(keepingCapacity: true)
        }
        var order = Array(0..<options.users)
        var arrivals: [Double] = []
        if checkpoints != nil || allocation != nil {
            // The first draw of a user's stream is the arrival (simulateUser); drawn here from a copy of it.
            arrivals = order.map(arrivalOffset)
            order.sort { (arrivals[$0], $0) < (arrivals[$1], $1) }
        }
        // No look and no period past the end of observation: nothing is written after it, so a stop
        // or a bandit period there would be made from nothing, in a future the story never reaches.
        let observed = observedUntil.timeIntervalSince(start)
        var simulator = self
        var nextLook = checkpoints.map { $0.every } ?? .infinity
        var stops: [String: ArmStops] = [:]
        var periods: [String: [BanditPeriod]] = [:]
        var nextBoundary = 0
        for (done, index) in order.enumerated() {
            if let allocation, nextBoundary < allocation.boundaries.count, arrivals[index] >= allocation.boundaries[nextBoundary],
               allocation.boundaries[nextBoundary] < observed {
                try flush()
                while nextBoundary < allocation.boundaries.count, arrivals[index] >= allocation.boundaries[nextBoundary],
                      allocation.boundaries[nextBoundary] < observed {
                    periods = try allocation.update(start.addingTimeInterval(allocation.boundaries[nextBoundary]))
                    nextBoundary += 1
                }
                simulator.assigner = assigner.withStops(stops).withPeriods(periods)
            }
            if let checkpoints, arrivals[index] >= nextLook, nextLook < observed {
                try flush()
                while arrivals[index] >= nextLook, nextLook < observed {
                    let now = start.addingTimeInterval(nextLook)
                    let answer = try checkpoints.look(now)
                    if answer.stops != stops {
                        stops = answer.stops
                        simulator.assigner = assigner.withStops(answer.stops).withPeriods(periods)
                    }
                    nextLook = answer.again ? nextLook + checkpoints.every : .infinity
                }
                progress(done)
            }
            var rng = SplitMix64(seed: options.seed, stream: UInt64(index))
            let (exposures, arrived) = simulator.simulateUser(index: index, rng: &rng, into: &batch)
            for (experiment, variant) in exposures { summary.exposed[experiment, default: [:]][variant, default: 0] += 1 }
            if arrived { summary.arrived += 1 }
            if batch.count >= batchSize {
                try flush()
                progress(done + 1)
            }
        }
        try flush()
        summary.users = options.users
        progress(options.users)
        return summary
    }

    /// When user `index` arrives, in seconds from `start`: the first draw of the user's stream, as
    /// `simulateUser` draws it.
    func arrivalOffset(_ index: Int) -> TimeInterval {
        var rng = SplitMix64(seed: options.seed, stream: UInt64(index))
        return rng.uniform(0, Double(options.days) * 86400)
    }

    /// Whether any user arrives before observation ends. A story that observes nothing writes
    /// nothing: every user would arrive after `observedUntil` (experiments that start after the
    /// present, or an `until` before their start).
    public var observesAnyone: Bool {
        let observed = observedUntil.timeIntervalSince(start)
        return observed > 0 && (0..<options.users).contains { arrivalOffset($0) < observed }
    }

    /// One user's events; returns the (experiment, variant) pairs it was exposed to, and whether it
    /// arrived before observation ended.
    func simulateUser(index: Int, rng: inout SplitMix64, into events: inout [Event]) -> (exposed: [(String, String)], arrived: Bool) {
        let userID: UserID = "sim-\(options.seed)-\(index)"
        let arrival = start.addingTimeInterval(rng.uniform(0, Double(options.days) * 86400))
        var attributes: Attributes = [:]
        for (name, distribution) in truth.population.attributes {
            if let v = rng.pick(distribution) { attributes[name] = .string(v) }
        }
        attributes["new_user"] = .bool(rng.chance(truth.population.newUser))
        // Drawn only when the truth names placements, so other truths keep their random streams.
        let placement = truth.population.placement.isEmpty ? nil : rng.pick(truth.population.placement)
        // What the app sent to assign, as its exposures carry it.
        let exposureAttributes = ExposureAttributes(attributes.members.compactMap { key, value in
            switch value {
            case .string(let s): return (key, .string(s))
            case .bool(let b): return (key, .bool(b))
            case .number(let d): return (key, .number(d))
            default: return nil
            }
        })
        func segmentValue(_ name: String) -> String? {
            if name == "placement" { return placement }
            switch attributes[name] {
            case .string(let s): return s
            case .bool(let b): return b ? "true" : "false"
            default: return nil
            }
        }
        func ratesFor(_ experiment: String, _ variant: String) -> Truth.Rates {
            truth.hasSegmentRates ? truth.rates(experiment: experiment, variant: variant, value: segmentValue)
                : truth.rates(experiment: experiment, variant: variant)
        }
        var signals: [String: JSONValue] = [:]
        for (name, distribution) in truth.population.signals where rng.chance(0.85) {
            if let v = rng.pick(distribution) { signals[name] = .string(v) }
        }
        let request = PaywallRequest(variables: rng.chance(0.6) ? ["userName": "Walker\(index % 97)"] : [:], signals: signals)
        // The user's storefront (products.json `storefronts`, by the drawn country): payments come
        // at its list price in its currency, and are stored converted into the report currency
        // with the amount paid kept, as ingest stores them.
        let products = catalog.products
        let country: String? = if case .string(let c)? = attributes["country"] { c } else { nil }
        let storefrontCurrency = products.storefrontCurrency(country: country)
        let rate = storefrontCurrency == products.currency ? nil : (try? products.converter.convert(1, from: storefrontCurrency))

        // Payments go through the store of the user's platform (for proceeds): the App Store on iOS,
        // Google Play on Android, Stripe otherwise; proceeds are the revenue less that store's cut.
        let store: PaymentStore = switch attributes["platform"] {
        case .string("ios")?: .appStore
        case .string("android")?: .googlePlay
        default: .stripe
        }
        let fees = catalog.products.stores
        var eventNumber = 0
        /// The id the user's purchases arrive under (the known id once logged in).
        var purchaser = userID
        /// The trial the paywall the user behaves by offers: a store's trial start says how long it
        /// granted (`trial_days`), so a report reads each trial's own days.
        var grantedTrialDays: Int?
        @discardableResult
        func add(_ type: EventType, at time: Date, experiment: String? = nil, variant: String? = nil, revenue: Double? = nil,
                 productID: String? = nil, copy: (source: String, text: String, reason: String?)? = nil,
                 reason: ExpiryReason? = nil, graceUntil: Date? = nil) -> Bool {
            guard time < observedUntil else { return false }
            eventNumber += 1
            // `revenue` is in the storefront's currency; a rate (validation requires one) converts it.
            let paid = revenue.flatMap { amount in rate.map { _ in amount } }
            let converted = revenue.map { amount in rate.map { amount * $0 } ?? amount }
            events.append(Event(
                id: "sim-\(options.seed)-\(index)-\(eventNumber)", type: type, userID: type == .exposure ? userID : purchaser, timestamp: Timestamp(time),
                experiment: experiment, variant: variant, revenue: converted,
                currency: revenue == nil ? nil : products.currency,
                productID: productID, copySource: copy.flatMap { .init(rawValue: $0.source) }, copyText: copy?.text, copyFallbackReason: copy?.reason,
                placement: type == .exposure ? placement : nil, attributes: type == .exposure ? exposureAttributes : .empty,
                originalRevenue: paid, originalCurrency: paid == nil ? nil : storefrontCurrency,
                trialDays: type == .trialStarted ? grantedTrialDays : nil,
                store: type == .exposure ? nil : store, proceeds: converted.map { fees.proceeds(of: $0, store: store) },
                proceedsBeforeTax: revenue != nil,
                // A bandit's exposure echoes the period assign answered, as an app does.
                allocationPeriod: type == .exposure ? experiment.flatMap { assigner.experiment($0)?.allocationPeriodStart(at: time) }.map { Timestamp($0) } : nil,
                reason: reason, graceUntil: graceUntil.map(Timestamp.init)))
            return true
        }

        var exposed: [(String, String)] = []
        /// The rates the user behaves by, the paywall it saw (nil: none) and the Day-0 window of its trial.
        var behaviour: (rates: Truth.Rates, paywall: Paywall?, day0WindowHours: Double)? = nil
        if let placement, let answer = assigner.assign(userID: userID, attributes: attributes, placement: placement, at: arrival) {
            // The app's placement answer: the holdout arms it lists, each logged with the placement.
            for h in assigner.holdoutAssignments(userID: userID, attributes: attributes, at: arrival) {
                guard let i = h.variantIndex, let holdout = catalog.experiment(h.experimentID) else { continue }
                if add(.exposure, at: arrival, experiment: holdout.id, variant: holdout.variants[i].key) { exposed.append((holdout.id, holdout.variants[i].key)) }
            }
            switch answer.shows {
            case .variant(let i):
                guard let assignment = answer.assignment, let experiment = catalog.experiment(assignment.experimentID) else { break }
                let variant = experiment.variants[i]
                let rates = ratesFor(experiment.id, variant.key)
                // One exposure for the placement, when the answer puts the user in the experiment (not
                // for a shipped winner or a safeguard stop's control, which the app does not log).
                if assignment.inExperiment && !rng.chance(rates.exposureLoss) {
                    let copy = variant.paywall.map { shownCopy($0, request: request, rng: &rng) }
                    if add(.exposure, at: arrival, experiment: experiment.id, variant: variant.key, copy: copy) { exposed.append((experiment.id, variant.key)) }
                }
                behaviour = (rates, variant.paywall, experiment.metrics.day0WindowHours)
            case .audience, .placementDefault:
                break
            }
            if behaviour == nil {
                // A fixed paywall, the placement's default, or none: no experiment's arm, the default rates.
                behaviour = (truth.hasSegmentRates ? truth.rates(experiment: "", variant: "", value: segmentValue) : truth.defaultRates,
                             answer.paywall, Self.defaultDay0WindowHours)
            }
        } else {
            experimentsPath(userID: userID, attributes: attributes, arrival: arrival, request: request, rng: &rng, ratesFor: ratesFor,
                            add: add, exposed: &exposed, behaviour: &behaviour)
        }
        let arrived = arrival < observedUntil
        // Drawn only when the truth has log-ins, so other truths keep their random streams.
        if truth.population.login > 0, !exposed.isEmpty, rng.chance(truth.population.login) {
            let known = UserID("acct-\(options.seed)-\(index)")
            let at = arrival.addingTimeInterval(rng.uniform(10, 50))
            if at < observedUntil {
                events.append(Event(id: EventID("identify:\(known.text)"), type: .identified, userID: userID, timestamp: Timestamp(at), identity: known))
                if truth.population.purchaseUnder == .known { purchaser = known }
            }
        }
        guard let (rates, paywall, window) = behaviour else { return (exposed, arrived) }
        grantedTrialDays = paywall?.trialDays
        behave(rates: rates, paywall: paywall, window: window, arrival: arrival, currency: storefrontCurrency, rng: &rng, add: add)
        return (exposed, arrived)
    }

    /// The Day-0 window of a user who saw no experiment's arm (the default `day0_window_hours`, 24).
    static let defaultDay0WindowHours = 24.0

    /// Adds one of the user's events: type, time, experiment, variant, revenue, product, the copy shown,
    /// an expiry's reason and a billing issue's grace; false when it falls after the observation.
    typealias EmitEvent = (EventType, Date, String?, String?, Double?, String?, (source: String, text: String, reason: String?)?,
                           ExpiryReason?, Date?) -> Bool

    /// A user with no placement: every experiment that takes it, in snapshot order; it behaves by
    /// the first that showed it a paywall.
    private func experimentsPath(userID: UserID, attributes: Attributes, arrival: Date, request: PaywallRequest, rng: inout SplitMix64,
                                 ratesFor: (String, String) -> Truth.Rates,
                                 add: EmitEvent,
                                 exposed: inout [(String, String)], behaviour: inout (rates: Truth.Rates, paywall: Paywall?, day0WindowHours: Double)?) {
        for candidate in assigner.experiments {
            let a = assigner.assign(userID: userID, attributes: attributes, experiment: candidate, now: arrival)
            if a.reason == .holdout, behaviour == nil, let withoutHoldouts, let experiment = catalog.experiment(a.experimentID),
               withoutHoldouts.assign(userID: userID, attributes: attributes, experiment: candidate, now: arrival).inExperiment {
                // Held out by a global holdout: no exposure here, and the paywall the experiments form
                // gives such a user, the control's, with the control's rates.
                behaviour = (ratesFor(experiment.id, experiment.variants[0].key), experiment.variants[0].paywall, experiment.metrics.day0WindowHours)
                continue
            }
            if a.reason == .safeguard, behaviour == nil, let experiment = catalog.experiment(a.experimentID) {
                // A stopped arm's user gets the control's paywall, logs no exposure and
                // behaves as the control's users do.
                behaviour = (ratesFor(experiment.id, experiment.variants[0].key), experiment.variants[0].paywall, experiment.metrics.day0WindowHours)
                continue
            }
            guard a.inExperiment, let i = a.variantIndex, let experiment = catalog.experiment(a.experimentID) else { continue }
            let variant = experiment.variants[i]
            let rates = ratesFor(experiment.id, variant.key)
            if rng.chance(rates.exposureLoss) { continue }
            // An arm with no paywall (a holdout arm) logs its exposure with no copy.
            let copy = variant.paywall.map { shownCopy($0, request: request, rng: &rng) }
            if add(.exposure, arrival, experiment.id, variant.key, nil, nil, copy, nil, nil) { exposed.append((experiment.id, variant.key)) }
            // A user behaves once, by the first experiment that showed them a paywall; a global
            // holdout's arms show none of their own, so the experiments after it decide.
            if behaviour == nil && !experiment.isHoldout { behaviour = (rates, variant.paywall, experiment.metrics.day0WindowHours) }
        }
    }

    /// What a user does after the paywall it saw (nil: none): a trial or a purchase, cancellations,
    /// conversion, renewals and refunds, by `rates`.
    private func behave(rates: Truth.Rates, paywall: Paywall?, window: Double, arrival: Date, currency: String, rng: inout SplitMix64,
                        add emit: EmitEvent) {
        func add(_ type: EventType, at time: Date, revenue: Double? = nil, productID: String? = nil,
                 reason: ExpiryReason? = nil, graceUntil: Date? = nil) {
            _ = emit(type, time, nil, nil, revenue, productID, nil, reason, graceUntil)
        }
        // New truth rates draw only when set, so a truth file without them simulates the same users as before.
        func draw(_ p: Double) -> Bool { p > 0 && rng.chance(p) }
        /// A cancel that stood: the paid period runs out at `periodEnd` and the store says so, as the
        /// stores do (an expiry for the person's own choice).
        func lapse(cancelledAt time: Date, periodEnd: Date) {
            add(.cancelled, at: time)
            add(.expired, at: periodEnd, reason: .voluntary)
        }
        /// A cancel at `time`; the person may turn auto-renew back on a few hours later, before `undoBy`
        /// (an undone cancel), else the period lapses at `periodEnd`. Answers whether the cancel stood.
        func cancel(at time: Date, undoBy: Date, periodEnd: Date) -> Bool {
            guard draw(rates.uncancel) else {
                lapse(cancelledAt: time, periodEnd: periodEnd)
                return true
            }
            add(.cancelled, at: time)
            let back = time.addingTimeInterval(rng.uniform(0.1, 1) * min(12 * 3600, max(60, undoBy.timeIntervalSince(time) - 60)))
            add(.uncancelled, at: back)
            return false
        }
        /// A charge due at `time`: it may fail (a billing issue, with a grace period), and then be recovered
        /// inside the grace (the charge comes late) or not (the subscription expires for billing).
        /// Answers when the charge went through, or nil.
        func charge(at time: Date) -> Date? {
            guard draw(rates.billingIssue) else { return time }
            let graceEnd = time.addingTimeInterval(Simulator.graceDays * 86400)
            add(.billingIssue, at: time, graceUntil: graceEnd)
            if draw(rates.billingRecovery) { return time.addingTimeInterval(rng.uniform(0.05, 0.95) * Simulator.graceDays * 86400) }
            add(.expired, at: graceEnd, reason: .billing)
            return nil
        }

        // With no paywall shown the user may still buy in the app's own store screen: the first offering, no trial.
        let offering = paywall?.offering ?? catalog.products.offerings.keys.sorted().first ?? ""
        let trialDays = paywall?.trialDays ?? 0
        let plans = catalog.products.offerings[offering] ?? [:]
        let annual = plans.values.first { $0.period == "P1Y" }, monthly = plans.values.first { $0.period == "P1M" }
        func pay(at due: Date, type: EventType) {
            guard let time = charge(at: due) else { return }
            guard var plan = (rng.chance(rates.annualShare) ? annual : monthly) ?? annual ?? monthly else { return }
            // The storefront's list price (validation requires one in every storefront currency).
            plan.price = plan.price(in: currency, default: catalog.products.currency) ?? plan.price
            add(type, at: time, revenue: plan.price, productID: plan.productID)
            if rng.chance(rates.refund) {
                add(.refunded, at: time.addingTimeInterval(rng.uniform(1, 72) * 3600), revenue: -plan.price, productID: plan.productID)
            } else if let churn = rates.renewalChurn, let days = Simulator.periodDays[plan.period] {
                // θ ~ Beta(α, β) per payer; each renewal comes unless the payer churns first.
                let theta = rng.beta(churn.alpha, churn.beta)
                var renewal = time.addingTimeInterval(days * 86400)
                var t = 1
                var lapsed = false
                while renewal < observedUntil && !rng.chance(churn.churn(theta: theta, renewal: t)) {
                    // A renewal whose charge fails for good ends in an expiry for billing, not a cancel.
                    guard let charged = charge(at: renewal) else { lapsed = true; break }
                    add(.renewed, at: charged, revenue: plan.price, productID: plan.productID)
                    renewal = charged.addingTimeInterval(days * 86400)
                    t += 1
                }
                if !lapsed, renewal < observedUntil { lapse(cancelledAt: renewal.addingTimeInterval(-rng.uniform(1, 72) * 3600), periodEnd: renewal) }
            } else if plan.period == "P1M" {
                var renewal = time.addingTimeInterval(30 * 86400)
                while renewal < observedUntil && rng.chance(rates.renewal), let charged = charge(at: renewal) {
                    add(.renewed, at: charged, revenue: plan.price, productID: plan.productID)
                    renewal = charged.addingTimeInterval(30 * 86400)
                }
            }
        }

        let trialHours = Double(trialDays) * 24
        if trialDays > 0 && rng.chance(rates.trialStart) {
            let trialStart = arrival.addingTimeInterval(rng.uniform(1, 30) * 60)
            add(.trialStarted, at: trialStart, productID: annual?.productID)
            let trialEnd = trialStart.addingTimeInterval(trialHours * 3600)
            var stands = true
            if rng.chance(rates.day0Cancel) {
                // A Day-0 cancel undone is undone inside the window, so it is no Day-0 cancel (as the truth counts).
                stands = cancel(at: trialStart.addingTimeInterval(rng.uniform(0.05, 0.95) * min(window, trialHours) * 3600),
                                undoBy: trialStart.addingTimeInterval(min(window, trialHours) * 3600), periodEnd: trialEnd)
            } else if trialHours > window + 2, rng.chance(rates.laterCancel) {
                stands = cancel(at: trialStart.addingTimeInterval(rng.uniform(window + 1, trialHours - 1) * 3600), undoBy: trialEnd, periodEnd: trialEnd)
            } else {
                stands = false
            }
            // A trial nobody cancelled, or whose cancel was undone, comes due at its end.
            if !stands, rng.chance(rates.convert) {
                pay(at: trialEnd, type: .converted)
            }
        } else if rng.chance(rates.directPurchase) {
            pay(at: arrival.addingTimeInterval(rng.uniform(2, 60) * 60), type: .purchased)
        }
    }

    /// The grace period after a failed charge: the store retries for this long before it gives up.
    public static let graceDays = 16.0

    /// Days between renewals of a plan period, as the simulation bills them.
    public static let periodDays: [String: Double] = ["P1W": 7, "P1M": 30, "P1Y": 365]

    /// The line the user saw and where it came from, as an app would report it on the exposure.
    func shownCopy(_ paywall: Paywall, request: PaywallRequest, rng: inout SplitMix64) -> (source: String, text: String, reason: String?) {
        switch PaywallResolver.resolveCopy(paywall.copy, request: request) {
        case .text(let text, let source, let reason):
            return (source.rawValue, text, reason?.rawValue)
        case .recipe(let recipe):
            let ai = truth.aiCopy
            guard rng.chance(ai.onDevice) else { return ("fallback", recipe.fallback, FallbackReason.noModel.rawValue) }
            let u = rng.uniform()
            if u < ai.guardReject { return ("fallback", recipe.fallback, FallbackReason.guardRejected.rawValue) }
            if u < ai.guardReject + ai.timeout { return ("fallback", recipe.fallback, FallbackReason.timeout.rawValue) }
            return ("on_device", "Chorus names every song on your walk. \(recipe.brief)", nil)
        }
    }
}
