import Assignment
import Events
import SQLiteStore
import ExperimentDefinitions
import Foundation
import Statistics
import Testing
@testable import Simulation

@Suite struct SimulatorTests {
    static let catalog: ExperimentDefinitions.ExperimentCatalog = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! ExperimentFiles.load(directory: url.path + "/Experiments")
    }()

    /// The shipped Chorus+ story, the truth file `abctl demo` uses.
    static let chorus: Truth = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! Truth.load(path: url.path + "/Experiments/simulation/chorus-plus-truth.json")
    }()

    func simulator(users: Int, seed: UInt64, truth: Truth = SimulatorTests.chorus) -> Simulator {
        Simulator(catalog: Self.catalog, assigner: try! Assigner(catalog: Self.catalog), truth: truth,
                  options: .init(users: users, seed: seed, days: 14))
    }

    func events(_ s: Simulator, batchSize: Int) throws -> [Event] {
        var all: [Event] = []
        _ = try s.run(batchSize: batchSize) { batch in all += batch; return AppendResult(stored: batch.count) }
        return all
    }

    @Test func theSameSeedGivesTheSameEventsHoweverBatched() throws {
        let a = try events(simulator(users: 3000, seed: 7), batchSize: 100)
        let b = try events(simulator(users: 3000, seed: 7), batchSize: 50_000)
        let c = try events(simulator(users: 3000, seed: 8), batchSize: 100)
        #expect(a.count > 1500)   // the story routes users by placement: about a third see an arm
        #expect(a == b)
        #expect(a != c)
        #expect(Set(a.map(\.id)).count == a.count, "event ids are unique")
    }

    /// With checkpoints users are simulated in order of arrival: each look has seen every exposure
    /// before it and none after, the events are those of a run without looks, and a stop made at a
    /// look turns the arm's later arrivals away (no exposure) while earlier ones keep theirs.
    @Test func checkpointsLookInArrivalOrderAndLaterArrivalsHonourAStop() throws {
        let s = simulator(users: 3000, seed: 7)
        let plain = try events(s, batchSize: 100)
        var written: [Event] = []
        var looks: [(Date, Int)] = []
        _ = try s.run(batchSize: 100, write: { written += $0; return AppendResult(stored: $0.count) },
                      checkpoints: .init(every: 86_400) { now in
                          looks.append((now, written.filter { $0.type == .exposure }.count))
                          return ([:], true)
                      })
        #expect(written.sorted { $0.id < $1.id } == plain.sorted { $0.id < $1.id })
        #expect(looks.count == 13, "a look at the end of each of the first 13 of 14 days")
        for (now, seen) in looks {
            let before = plain.filter { $0.type == .exposure && $0.timestamp.date < now }
            #expect(seen == before.count, "the look at \(now) saw every exposure before it and none after")
        }

        let stopAt = s.start.addingTimeInterval(7 * 86_400)
        var stopped: [Event] = []
        _ = try s.run(batchSize: 100, write: { stopped += $0; return AppendResult(stored: $0.count) },
                      checkpoints: .init(every: 86_400) { now in
                          now >= stopAt ? (["chorus-trial-length": ArmStops(stoppedArms: [false, true], holdStageAt: stopAt)], false) : ([:], true)
                      })
        func exposures(_ all: [Event], _ variant: String) -> [Event] {
            all.filter { $0.type == .exposure && $0.experiment == "chorus-trial-length" && $0.variant == variant }
        }
        let late = exposures(plain, "trial-7d").filter { $0.timestamp.date >= stopAt }
        #expect(!late.isEmpty)
        #expect(exposures(stopped, "trial-7d").allSatisfy { $0.timestamp.date < stopAt })
        #expect(exposures(stopped, "trial-7d").count == exposures(plain, "trial-7d").count - late.count)
        #expect(exposures(stopped, "trial-3d").count == exposures(plain, "trial-3d").count)
    }

    @Test func eventsStayInsideTheObservedWindowAndFollowTheirUser() throws {
        let s = simulator(users: 2000, seed: 3)
        let all = try events(s, batchSize: 1000)
        #expect(all.allSatisfy { $0.timestamp.date >= s.start && $0.timestamp.date < s.observedUntil })
        // Every exposure names a variant of its experiment, and an exposed user's first event is its exposure
        // (users the story's placements show no arm behave without one).
        let keys = Self.catalog.variantKeys
        #expect(all.filter { $0.type == .exposure }.allSatisfy { keys[$0.experiment!]?.contains($0.variant!) == true })
        let exposedUsers = Set(all.filter { $0.type == .exposure }.map(\.userID))
        let firstByUser = Dictionary(grouping: all.filter { exposedUsers.contains($0.userID) }, by: \.userID).mapValues { $0.min { $0.timestamp < $1.timestamp }! }
        #expect(!firstByUser.isEmpty && firstByUser.values.allSatisfy { $0.type == .exposure })
    }

    /// The store's facts recover the true rates: each within 4 standard errors (a false alarm about once in 15,000 checks).
    @Test func theStoreRecoversTheTrueRates() throws {
        let folder = NSTemporaryDirectory() + "abctl-sim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteEventStore(path: folder + "/sim.sqlite", options: .init(durability: .normal))
        defer { store.close() }
        let truth = Self.chorus
        let summary = try simulator(users: 30_000, seed: 11, truth: truth).run { try store.appendAndWait($0) }
        #expect(summary.stored == summary.events)

        // A global holdout's arms have no rates of their own (their users behave by what the experiments
        // showed them); HoldoutRecoversCombinedEffectTests and DemoStoryTests check what its report recovers.
        for experiment in Self.catalog.experiments where !experiment.isHoldout {
            let facts = try store.facts(experiment: experiment.id)
            let byVariant = Dictionary(grouping: facts, by: \.variant)
            #expect(Set(byVariant.keys) == Set(experiment.variants.map(\.key)))
            for variant in experiment.variants {
                let rows = try #require(byVariant[variant.key])
                let rates = truth.rates(experiment: experiment.id, variant: variant.key)
                let window = experiment.metrics.day0WindowHours
                func check(_ metric: Metric, _ count: Int, of n: Int) {
                    guard let p = rates.expected(metric, trialDays: variant.paywall?.trialDays ?? 0, day0WindowHours: window) else { return }
                    let observed = Double(count) / Double(n)
                    let se = (p * (1 - p) / Double(n)).squareRoot()
                    #expect(abs(observed - p) < 4 * se, "\(experiment.id)/\(variant.key) \(metric.name): \(observed) vs true \(p)")
                }
                let starters = rows.filter(\.startedTrial)
                check(.named("trial_start_rate"), starters.count, of: rows.count)
                check(.day0CancelRate, starters.filter { $0.isDay0Cancel(windowHours: window) }.count, of: starters.count)
                // Users who arrived early enough to finish the trial inside the window.
                let matured = starters.filter { $0.trialStart!.date.addingTimeInterval(Double((variant.paywall?.trialDays ?? 0) + 1) * 86400) < summary.observedUntil }
                check(.named("trial_to_paid"), matured.filter(\.converted).count, of: matured.count)
                // Refunds come within three days of paying: payers who paid at least three days before the end.
                let payers = rows.filter { $0.firstPaid.map { $0.date.addingTimeInterval(3 * 86400) < summary.observedUntil } ?? false }
                check(.named("refund_rate"), payers.filter(\.isRefunded).count, of: payers.count)
            }
        }
    }

    /// An arm that loses 10% of its exposures has 0.9 / 1.9 of the two arms' exposed users: within 4
    /// standard errors of that, and clearly below half (the story's safeguard is not evaluated here).
    @Test func lostExposuresMakeAnUnevenSplit() throws {
        var truth = Self.chorus
        truth.variants["chorus-trial-length"]?["trial-7d"]?.exposureLoss = 0.1
        var short = 0, long = 0
        _ = try simulator(users: 100_000, seed: 5, truth: truth).run { batch in
            for e in batch where e.type == .exposure && e.experiment == "chorus-trial-length" {
                if e.variant == "trial-3d" { short += 1 } else if e.variant == "trial-7d" { long += 1 }
            }
            return AppendResult(stored: batch.count)
        }
        let n = Double(short + long), share = Double(long) / n, expected = 0.9 / 1.9
        let se = (expected * (1 - expected) / n).squareRoot()
        #expect(abs(share - expected) < 4 * se && share < 0.5 - 2 * se, "\(short) vs \(long): \(share) against \(expected) ± \(se)")
    }

    @Test func aiArmReportsItsCopySources() throws {
        let all = try events(simulator(users: 20_000, seed: 9), batchSize: 5000)
        let ai = all.filter { $0.type == .exposure && $0.variant == "ai" }
        let reasons = Set(ai.compactMap(\.copyFallbackReason))
        #expect(reasons == ["no_model", "guard_rejected", "timeout", "empty_brief"])
        #expect(ai.filter { $0.copySource?.rawValue == "on_device" }.count > ai.count / 3)
        #expect(all.filter { $0.type == .exposure && $0.variant == "name" }.allSatisfy { $0.copySource?.rawValue == "template" })
    }

    @Test func truthFilesOverrideRatesAndRejectTypos() throws {
        let folder = NSTemporaryDirectory() + "abctl-truth-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"default": {"trial_start": 0.5}, "experiments": {"x": {"a": {"convert": 0.1}}}, "ai_copy": {"on_device": 0}}"#
            .write(toFile: folder, atomically: true, encoding: .utf8)
        let t = try Truth.load(path: folder)
        #expect(t.defaultRates.trialStart == 0.5 && t.aiCopy.onDevice == 0)
        #expect(t.rates(experiment: "x", variant: "a").convert == 0.1 && t.rates(experiment: "x", variant: "a").trialStart == 0.5)
        try #"{"default": {"trial_strat": 0.5}}"#.write(toFile: folder, atomically: true, encoding: .utf8)
        #expect(throws: Truth.LoadError.self) { try Truth.load(path: folder) }
        try #"{"default": {"convert": 1.5}}"#.write(toFile: folder, atomically: true, encoding: .utf8)
        #expect(throws: Truth.LoadError.self) { try Truth.load(path: folder) }
    }

    /// Renewals through the real store follow the truth's renewal heterogeneity: monthly payers over a
    /// 400-day window, each with θ ~ Beta(1.5, 6); the share still paying after 6 renewals and the
    /// shifted-beta-geometric fit to the stored payments both recover the true S(6) = B(α, β + 6)/B(α, β)
    /// within 4 standard errors. A tenure factor (a shape the model does not assume) moves it away.
    @Test func renewalsFollowTheTruthsHeterogeneity() throws {
        func stored(_ churn: Truth.RenewalChurn) throws -> (surviving: Double, payers: Int, fit: ShiftedBetaGeometric) {
            let folder = NSTemporaryDirectory() + "abctl-renew-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let store = try SQLiteEventStore(path: folder + "/sim.sqlite", options: .init(durability: .normal))
            defer { store.close() }
            var truth = Truth()
            truth.defaultRates.trialStart = 0
            truth.defaultRates.directPurchase = 1
            truth.defaultRates.annualShare = 0
            truth.defaultRates.refund = 0
            truth.defaultRates.renewalChurn = churn
            let s = Simulator(catalog: Self.catalog, assigner: try Assigner(catalog: Self.catalog), truth: truth,
                              options: .init(users: 4000, seed: 5, days: 20, tailDays: 380))
            _ = try s.run { try store.appendAndWait($0) }
            let experiment = try #require(Self.catalog.experiments.first { $0.status == .running }).id
            var history = RenewalHistory()
            var payers = 0, surviving = 0
            for f in try store.facts(experiment: experiment) where f.paid {
                let payments = f.revenueEntries.filter { $0.amount > 0 }
                let last = f.firstExposure.microseconds + payments.last!.offset
                history.add(payments: payments.count, churned: (f.firstCancel?.microseconds ?? 0) > last)
                payers += 1
                if payments.count >= 7 { surviving += 1 }
            }
            return (Double(surviving) / Double(payers), payers, try ShiftedBetaGeometric.fit(history))
        }
        let truth = ShiftedBetaGeometric(alpha: 1.5, beta: 6)
        let model = try stored(.init(alpha: 1.5, beta: 6))
        let se = (truth.survival(6) * (1 - truth.survival(6)) / Double(model.payers)).squareRoot()
        #expect(model.payers > 800)
        #expect(abs(model.surviving - truth.survival(6)) < 4 * se, "share paying after 6 renewals \(model.surviving) vs \(truth.survival(6))")
        #expect(abs(model.fit.survival(6) - truth.survival(6)) < 4 * se, "fitted S(6) \(model.fit.survival(6)) vs \(truth.survival(6))")
        let rising = try stored(.init(alpha: 1.5, beta: 6, tenureFactor: 1.3))
        #expect(rising.surviving < truth.survival(6) - 4 * se, "churn rising with tenure leaves fewer payers")
    }

    @Test func truthFilesReadRenewalChurn() throws {
        let path = NSTemporaryDirectory() + "abctl-truth-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"default": {"renewal_churn": {"alpha": 1.2, "beta": 6}}, "experiments": {"x": {"a": {"renewal_churn": {"alpha": 2, "beta": 3, "tenure_factor": 0.9}}}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let t = try Truth.load(path: path)
        #expect(t.defaultRates.renewalChurn == .init(alpha: 1.2, beta: 6))
        #expect(t.rates(experiment: "x", variant: "a").renewalChurn == .init(alpha: 2, beta: 3, tenureFactor: 0.9))
        for bad in [#"{"default": {"renewal_churn": {"alpha": 1.2}}}"#, #"{"default": {"renewal_churn": {"alpha": 0, "beta": 1}}}"#,
                    #"{"default": {"renewal_churn": {"alpha": 1, "beta": 1, "tenure": 1}}}"#] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: Truth.LoadError.self) { try Truth.load(path: path) }
        }
    }

    /// A file that names no experiment is an A/A test: every variant of every experiment gets its default rates,
    /// whatever order its keys are in.
    @Test func variantsAFileDoesNotNameGetItsDefault() throws {
        let path = NSTemporaryDirectory() + "abctl-truth-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"experiments": {"chorus-trial-length": {"trial-7d": {"convert": 0.5}}}, "default": {"trial_start": 0.2}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let t = try Truth.load(path: path)
        for experiment in Self.catalog.experiments {
            for variant in experiment.variants where variant.key != "trial-7d" {
                #expect(t.rates(experiment: experiment.id, variant: variant.key) == t.defaultRates, "\(experiment.id)/\(variant.key)")
            }
        }
        #expect(t.defaultRates.trialStart == 0.2)
        #expect(t.rates(experiment: "chorus-trial-length", variant: "trial-7d").trialStart == 0.2)
        #expect(t.rates(experiment: "chorus-trial-length", variant: "trial-7d").convert == 0.5)
    }

    /// Rates by segment: the default's `by` moves every arm, a variant's `by` moves that arm, and the
    /// keys a variant sets itself are beyond the default's `by`; typos are errors, not rates nobody gets.
    @Test func truthFilesGiveRatesBySegment() throws {
        let path = NSTemporaryDirectory() + "abctl-truth-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"""
        {"default": {"trial_start": 0.3, "by": {"country": {"US": {"trial_start": 0.5, "convert": 0.8}}}},
         "experiments": {"x": {"a": {}, "b": {"trial_start": 0.4, "by": {"platform": {"android": {"trial_start": 0.2}},
                                                                      "acquisition": {"paid": {"refund": 0.1}}}}}},
         "population": {"placement": {"onboarding_end": 0.7, "feature_gate": 0.3},
                        "attributes": {"acquisition": {"organic": 0.6, "paid": 0.4}}}}
        """#.write(toFile: path, atomically: true, encoding: .utf8)
        let t = try Truth.load(path: path)
        #expect(t.hasSegmentRates)
        #expect(t.population.placement.map(\.0) == ["onboarding_end", "feature_gate"])
        #expect(t.population.attributes.contains { $0.0 == "acquisition" })
        func user(_ values: [String: String]) -> (String) -> String? { { values[$0] } }
        let usIOS = user(["country": "US", "platform": "ios"]), usAndroid = user(["country": "US", "platform": "android", "acquisition": "paid"])
        let gbIOS = user(["country": "GB", "platform": "ios"])
        // The default's `by` reaches every arm, except for the keys a variant sets itself.
        #expect(t.rates(experiment: "x", variant: "a", value: usIOS).trialStart == 0.5)
        #expect(t.rates(experiment: "x", variant: "a", value: gbIOS).trialStart == 0.3)
        #expect(t.rates(experiment: "x", variant: "b", value: usIOS).trialStart == 0.4)
        #expect(t.rates(experiment: "x", variant: "b", value: usIOS).convert == 0.8)
        #expect(t.rates(experiment: "x", variant: "b", value: gbIOS).convert == 0.9)
        // The variant's `by` comes last.
        #expect(t.rates(experiment: "x", variant: "b", value: usAndroid).trialStart == 0.2)
        #expect(t.rates(experiment: "x", variant: "b", value: usAndroid).refund == 0.1)
        #expect(t.rates(experiment: "x", variant: "a", value: usAndroid).refund == 0.03)
        // Without segment values, the plain rates.
        #expect(t.rates(experiment: "x", variant: "b") == t.rates(experiment: "x", variant: "b", value: { _ in nil }))

        for (bad, words) in [
            (#"{"default": {"by": {"contry": {"US": {"trial_start": 0.5}}}}}"#, "did you mean 'country'"),
            (#"{"default": {"by": {"country": {"JP": {"trial_start": 0.5}}}}}"#, "never 'JP'"),
            (#"{"default": {"by": {"placement": {"onboarding_end": {"trial_start": 0.5}}}}}"#, "no attribute 'placement'"),
            (#"{"default": {"by": {"country": {"US": {"renewal_churn": {"alpha": 1, "beta": 2}}}}}}"#, "unknown key 'renewal_churn'"),
            (#"{"default": {"by": {"country": {"US": {"trial_start": 1.5}}}}}"#, "probability"),
            (#"{"population": {"acquisition": {"paid": 1}}}"#, "under 'attributes'"),
            (#"{"population": {"attributes": {"platform": {"ios": 1}}}}"#, "population.platform"),
        ] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect { try Truth.load(path: path) } throws: { ($0 as? Truth.LoadError)?.message.contains(words) == true }
        }
    }

    /// Simulated exposures carry the attributes the user was drawn with, and each segment behaves by
    /// its own rates: a country that starts more trials in every arm, and an arm whose lift is gone
    /// on Android. (No placement: every experiment that takes a user exposes it.)
    @Test func simulatedUsersCarryAttributesAndFollowSegmentRates() throws {
        var truth = Truth()
        truth.population.attributes.append(("acquisition", [("organic", 0.6), ("paid", 0.4)]))
        truth.defaultBy = [.init(attribute: "country", value: "US", rates: ["trial_start": 0.5])]
        truth.variants["chorus-paywall-copy"] = ["ai": { var r = Truth.Rates(); r.trialStart = 0.45; return r }()]
        truth.variantKeys["chorus-paywall-copy"] = ["ai": ["trial_start"]]
        truth.variantBy["chorus-paywall-copy"] = ["ai": [.init(attribute: "platform", value: "android", rates: ["trial_start": 0.3])]]
        let all = try events(simulator(users: 30_000, seed: 21, truth: truth), batchSize: 10_000)
        let exposures = all.filter { $0.type == .exposure }
        #expect(exposures.count > 20_000)
        for e in exposures {
            let keys = Set(e.attributes.pairs.map(\.key))
            #expect(keys == ["platform", "country", "language", "app_version", "new_user", "acquisition"], "\(keys)")
            #expect(e.placement == nil)
        }
        #expect(all.filter { $0.type != .exposure }.allSatisfy { $0.placement == nil && $0.attributes.isEmpty })

        // Trial starts per (experiment, variant, platform, US or not), among the copy experiment's users.
        let starters = Set(all.filter { $0.type == .trialStarted }.map(\.userID))
        var cells: [String: (starts: Int, users: Int)] = [:]
        for e in exposures where e.experiment == "chorus-paywall-copy" {
            guard case .string(let platform) = e.attributes["platform"], case .string(let country) = e.attributes["country"] else { continue }
            let key = "\(e.variant!)/\(platform)/\(country == "US" ? "US" : "rest")"
            cells[key, default: (0, 0)].users += 1
            if starters.contains(e.userID) { cells[key, default: (0, 0)].starts += 1 }
        }
        func check(_ key: String, _ p: Double) {
            guard let c = cells[key] else { Issue.record("no users in \(key)"); return }
            let observed = Double(c.starts) / Double(c.users), se = (p * (1 - p) / Double(c.users)).squareRoot()
            #expect(abs(observed - p) < 4 * se, "\(key): \(observed) vs true \(p) over \(c.users)")
        }
        check("control/ios/rest", 0.35)
        check("control/ios/US", 0.5)
        check("control/android/US", 0.5)
        check("ai/ios/rest", 0.45)
        check("ai/ios/US", 0.45)        // the arm's own trial_start is beyond the default's `by`
        check("ai/android/rest", 0.3)
        check("ai/android/US", 0.3)
    }

    /// Users with a placement are routed by the shipped placements.json as `/v1/assign` routes them:
    /// at `onboarding_end` new iOS users see chorus-paywall-copy and everyone else chorus-trial-length;
    /// at `feature_gate` web users see no paywall and android users chorus-discount-framing. So each
    /// user has at most one experiment's exposure, carrying its placement, beside its arm of the global
    /// holdout (a held-out user sees no experiment).
    @Test func usersWithAPlacementGetThatPlacementsAnswerAndOneExposure() throws {
        var truth = Truth()
        truth.population.placement = [("onboarding_end", 0.7), ("feature_gate", 0.3)]
        let all = try events(simulator(users: 20_000, seed: 33, truth: truth), batchSize: 5_000)
        let exposures = all.filter { $0.type == .exposure }
        var perUser: [UserID: Int] = [:], heldOut: [UserID: String] = [:]
        for e in exposures {
            // The global holdout takes everyone: one exposure each, beside the placement's.
            if e.experiment == "chorus-holdout" {
                #expect(heldOut[e.userID] == nil && e.placement != nil, "\(e.userID): one holdout exposure, with its placement")
                heldOut[e.userID] = e.variant
                continue
            }
            perUser[e.userID, default: 0] += 1
            let newIOS = e.attributes["platform"] == .string("ios") && e.attributes["new_user"] == .bool(true)
            switch e.experiment {
            case "chorus-paywall-copy": #expect(newIOS && e.placement == "onboarding_end", "\(e.userID) is not a new iOS user at onboarding_end")
            case "chorus-trial-length": #expect(!newIOS && e.placement == "onboarding_end", "\(e.userID): the audience new-ios decides at onboarding_end")
            case "chorus-discount-framing":
                #expect(e.attributes["platform"] == .string("android") && e.placement == "feature_gate", "\(e.userID): only feature_gate's android audience")
            case "chorus-voice":
                #expect(e.attributes["platform"] == .string("ios") && e.placement == "feature_gate", "\(e.userID): only feature_gate's ios audience")
            default: Issue.record("\(e.userID) exposed to \(e.experiment ?? "?"), which no audience shows")
            }
        }
        #expect(perUser.values.allSatisfy { $0 == 1 })
        #expect(heldOut.count == 20_000, "every user has its holdout arm")
        #expect(perUser.keys.allSatisfy { heldOut[$0] == "general" }, "a held-out user is shown no experiment")
        // 70% at onboarding_end; new iOS users (0.6 × 0.9) in chorus-paywall-copy's 40% of the
        // namespace, the others in chorus-trial-length's 30%: 20,000 × 0.7 × (0.216 + 0.138) ≈ 4,956;
        // 30% at feature_gate, android users (0.4) with app_version >= 2.1.0 (0.9) in
        // chorus-discount-framing's 30%: 20,000 × 0.3 × 0.108 ≈ 648, and iOS users (0.6) in the bandit
        // chorus-voice, which has no namespace: 20,000 × 0.3 × 0.6 = 3,600. About 9,204, less the
        // holdout's 10%: about 8,284.
        #expect(abs(perUser.count - 8_284) < 300, "\(perUser.count)")
        // Users who saw no arm still behave (the default rates): trials among the unexposed.
        let exposedUsers = Set(perUser.keys)
        #expect(all.contains { $0.type == .trialStarted && !exposedUsers.contains($0.userID) })
    }

    /// Storefronts: a user whose country has one pays that storefront's list price in its
    /// currency, stored converted into the report currency with the amount as paid kept (as ingest
    /// stores it); a user of the default storefront pays the table price, as before.
    @Test func aStorefrontsUsersPayItsPriceConverted() throws {
        let folder = NSTemporaryDirectory() + "abctl-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        try FileManager.default.copyItem(atPath: root.path + "/Experiments/chorus-trial-length.json", toPath: folder + "/chorus-trial-length.json")
        try #"""
            { "currency": "USD", "exchange_rates": { "EUR": 1.08 }, "storefronts": { "DE": "EUR" },
              "offerings": { "chorus_plus": { "plans": {
                "monthly": { "product_id": "chorus.plus.monthly", "price": 9.99, "period": "P1M", "prices": { "EUR": 10.49 } },
                "annual": { "product_id": "chorus.plus.annual", "price": 59.99, "period": "P1Y", "prices": { "EUR": 69.99 } } } } } }
            """#.write(toFile: folder + "/products.json", atomically: true, encoding: .utf8)
        let catalog = try ExperimentFiles.load(directory: folder)
        var truth = Truth()
        truth.population.attributes = [("country", [("US", 0.5), ("DE", 0.5)])]
        let s = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth, options: .init(users: 4_000, seed: 8))
        var all: [Event] = []
        _ = try s.run { all += $0; return AppendResult(stored: $0.count) }
        let country = Dictionary(all.filter { $0.type == .exposure }.compactMap { e -> (UserID, String)? in
            guard case .string(let c) = e.attributes["country"] else { return nil }
            return (e.userID, c)
        }, uniquingKeysWith: { a, _ in a })
        let paid = all.filter { $0.revenue != nil }
        var seen: Set<String> = []
        for e in paid {
            let c = try #require(country[e.userID], "\(e.userID) paid without an exposure")
            seen.insert(c)
            #expect(e.currency == "USD")
            if c == "DE" {
                #expect(e.originalCurrency == "EUR" && [10.49, 69.99].contains(abs(e.originalRevenue ?? 0)), "\(e)")
                #expect(abs((e.revenue ?? 0) - (e.originalRevenue ?? 0) * 1.08) < 1e-9, "\(e)")
            } else {
                #expect(e.originalCurrency == nil && e.originalRevenue == nil && [9.99, 59.99].contains(abs(e.revenue ?? 0)), "\(e)")
            }
        }
        #expect(seen == ["US", "DE"], "payments from both storefronts: \(paid.count)")
    }

    /// A global holdout: its users log the holdout exposure and nothing of the experiments it keeps them
    /// out of, and behave as that experiment's control would have; general users behave by their arm.
    @Test func heldOutUsersBehaveAsTheControl() throws {
        let folder = NSTemporaryDirectory() + "abctl-hold-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        for name in ["products.json", "chorus-paywall-copy.json"] {
            try FileManager.default.copyItem(atPath: root.path + "/Experiments/" + name, toPath: folder + "/" + name)
        }
        try #"{"id": "a-hold", "name": "Holdout", "kind": "holdout", "fraction": 0.2, "status": "running"}"#
            .write(toFile: folder + "/a-hold.json", atomically: true, encoding: .utf8)
        let catalog = try ExperimentFiles.load(directory: folder)
        #expect(catalog.experiments.first?.isHoldout == true, "the holdout comes first, so it must not decide behaviour")
        var truth = Truth()
        truth.variants["chorus-paywall-copy"] = ["ai": { var r = Truth.Rates(); r.trialStart = 0.6; return r }(),
                                                 "name": { var r = Truth.Rates(); r.trialStart = 0.6; return r }()]
        let s = Simulator(catalog: catalog, assigner: try Assigner(catalog: catalog), truth: truth, options: .init(users: 20_000, seed: 4))
        var all: [Event] = []
        _ = try s.run { all += $0; return AppendResult(stored: $0.count) }
        let exposures = Dictionary(grouping: all.filter { $0.type == .exposure }, by: \.userID)
        let starters = Set(all.filter { $0.type == .trialStarted }.map(\.userID))
        var held = 0, heldStarts = 0, general: [String: (starts: Int, users: Int)] = [:]
        for (user, list) in exposures {
            let arm = try #require(list.first { $0.experiment == "a-hold" }?.variant, "every user is in the holdout's arms")
            let copy = list.first { $0.experiment == "chorus-paywall-copy" }?.variant
            if arm == "holdout" {
                #expect(copy == nil, "a held-out user is exposed to nothing else")
                held += 1
                if starters.contains(user) { heldStarts += 1 }
            } else if let copy {
                general[copy, default: (0, 0)].users += 1
                if starters.contains(user) { general[copy, default: (0, 0)].starts += 1 }
            }
        }
        let share = Double(held) / Double(exposures.count)
        #expect(abs(share - 0.2) < 0.015, "\(share)")
        // Held-out users see the control's paywall (the copy experiment takes everyone on iOS and Android, 40% of the namespace).
        func check(_ name: String, _ starts: Int, _ n: Int, _ p: Double) {
            let observed = Double(starts) / Double(n), se = (p * (1 - p) / Double(n)).squareRoot()
            #expect(abs(observed - p) < 4 * se, "\(name): \(observed) vs true \(p) over \(n)")
        }
        let reach = Double(general.values.reduce(0) { $0 + $1.users }) / Double(exposures.count - held)
        check("held out", heldStarts, held, 0.35 * reach)
        check("general control", general["control"]!.starts, general["control"]!.users, 0.35)
        check("general ai", general["ai"]!.starts, general["ai"]!.users, 0.6)
    }
}
