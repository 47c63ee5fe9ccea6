import Events
import PostgresStore
import SQLiteStore
import ExperimentDefinitions
import Foundation
import Reporting
import Testing
import TestSupport

/// What every store must do, written only against the store protocols and run against each
/// store of `storeFactories`: the same events give the same facts (those `FactsBuilder`
/// computes over all of a user's events), duplicates are stored once, an exposure is the
/// sticky record, the copy cache keeps lines, and reports are byte for byte the same.
@Suite struct StoreConformanceTests {
    @Test(arguments: storeFactories)
    func factsEqualTheBuilderOverAllOfAUsersEvents(_ factory: StoreFactory) async throws {
        let events = RandomEvents.make(users: 300, seed: 7)
        var rng = SeededGenerator(seed: 11)
        let reference = ReferenceFacts(events)
        try await factory.withStore { store in
            // Shuffled, in chunks of random size, with some chunks sent twice (retries).
            var rest = events.shuffled(using: &rng)[...]
            var stored = 0
            while !rest.isEmpty {
                let chunk = Array(rest.prefix(Int.random(in: 1...50, using: &rng)))
                rest = rest.dropFirst(chunk.count)
                stored += try store.appendAndWait(chunk).stored
                if Bool.random(using: &rng) { #expect(try store.appendAndWait(chunk) == AppendResult(stored: 0, duplicates: chunk.count)) }
            }
            #expect(stored == events.count)
            for experiment in RandomEvents.experiments {
                let expected = reference.allFacts(experiment: experiment)
                #expect(!expected.isEmpty)
                #expect(try store.facts(experiment: experiment) == expected, "\(experiment)")
            }
            #expect(try store.experiments() == reference.experiments())
        }
    }

    @Test(arguments: storeFactories)
    func sinceAndUntilBoundTheFirstExposureAndCutRevenue(_ factory: StoreFactory) async throws {
        let events = RandomEvents.make(users: 200, seed: 3)
        let reference = ReferenceFacts(events)
        let since = RandomEvents.origin.adding(hours: 24), until = RandomEvents.origin.adding(hours: 24 * 5)
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            for experiment in RandomEvents.experiments {
                #expect(try store.facts(experiment: experiment, since: since, until: until)
                        == reference.facts(experiment: experiment, since: since, until: until))
                for asOf in [until, until.adding(hours: 24 * 10), RandomEvents.origin.adding(hours: 24 * 60)] {
                    #expect(try store.netRevenue(experiment: experiment, asOf: asOf, since: since, until: until)
                            == reference.netRevenue(experiment: experiment, asOf: asOf, since: since, until: until))
                }
            }
        }
    }

    /// What a safeguard evaluation reads: the facts' times, cut at `until`, with the arm as an index into the
    /// variants asked for; other variants and excluded users left out. The same as the rows of `forEachFact`.
    /// A read that leaves parts of the rows unread gives the same rows with those parts empty.
    @Test(arguments: storeFactories)
    func factsWithoutTheFieldsNotAskedFor(_ factory: StoreFactory) async throws {
        let events = RandomEvents.make(users: 300, seed: 9)
        let reference = ReferenceFacts(events)
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            for experiment in RandomEvents.experiments {
                let whole = reference.allFacts(experiment: experiment)
                #expect(whole.contains { $0.attributes != .empty } && whole.contains { !$0.revenueEntries.isEmpty } && whole.contains { $0.placement != nil })
                for fields in [FactFields.all, .revenueEntries, .attributes, []] {
                    var rows: [UserFacts] = []
                    try store.forEachFact(experiment: experiment, since: nil, until: nil, fields: fields) { rows.append($0) }
                    let expected = whole.map { f in
                        var f = f
                        if !fields.contains(.attributes) { (f.attributes, f.placement) = (.empty, nil) }
                        if !fields.contains(.revenueEntries) { f.revenueEntries = [] }
                        return f
                    }
                    #expect(rows == expected, "\(experiment) \(fields)")
                }
            }
        }
    }

    /// A walk by batches reads the rows a walk by rows reads, in the same order, with or without revenue entries.
    @Test(arguments: storeFactories)
    func aBatchWalkReadsTheRowsOfTheRowWalk(_ factory: StoreFactory) async throws {
        let events = RandomEvents.make(users: 300, seed: 13)
        let until = RandomEvents.origin.adding(hours: 24 * 5)
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            for experiment in RandomEvents.experiments {
                for (fields, bound) in [(FactFields.revenueEntries, nil), (FactFields(), until)] as [(FactFields, Timestamp?)] {
                    var rows: [UserFacts] = [], batched: [UserFacts] = []
                    try store.forEachFact(experiment: experiment, since: nil, until: bound, fields: fields) { rows.append($0.withoutBatchlessParts) }
                    try store.forEachFactBatch(experiment: experiment, since: nil, until: bound, fields: fields) {
                        batched += $0.facts(experiment: experiment)
                    }
                    #expect(rows.contains { !$0.revenueEntries.isEmpty } == fields.contains(.revenueEntries))
                    #expect(rows.contains { !$0.undoneCancels.isEmpty || !$0.laterEnds.isEmpty })
                    #expect(batched == rows, "\(experiment) \(fields)")
                }
            }
        }
    }

    @Test(arguments: storeFactories)
    func factTimesAreTheFactsRowsTimes(_ factory: StoreFactory) async throws {
        let events = RandomEvents.make(users: 300, seed: 5)
        let reference = ReferenceFacts(events)
        let until = RandomEvents.origin.adding(hours: 24 * 5)
        try await factory.withStore { store in
            _ = try store.appendAndWait(events)
            for experiment in RandomEvents.experiments {
                let facts = reference.allFacts(experiment: experiment)
                let excluded = Set(facts.prefix(3).map(\.userID) + [UserID("nobody")])
                for (variants, excluding, bound) in [(RandomEvents.variants, Set<UserID>(), nil), (["ai", "control"], excluded, until),
                                                     (["name", "control", "ai"], excluded, nil)] as [([String], Set<UserID>, Timestamp?)] {
                    func times(_ r: any FactsReader) throws -> [FactTimes] {
                        var out: [FactTimes] = []
                        try r.forEachFactTimes(experiment: experiment, until: bound, variants: variants, excluding: excluding) { out.append($0) }
                        return out
                    }
                    let expected = facts.compactMap { f -> FactTimes? in
                        guard let arm = variants.firstIndex(of: f.variant), !excluding.contains(f.userID),
                              bound.map({ f.firstExposure < $0 }) ?? true else { return nil }
                        return FactTimes(f, arm: arm)
                    }
                    #expect(!expected.isEmpty)
                    #expect(try times(store) == expected, "\(experiment) \(variants)")
                    #expect(try times(reference) == expected, "\(experiment) \(variants)")
                }
            }
        }
    }

    @Test(arguments: storeFactories)
    func aRetriedEventIsStoredOnce(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        let batch = [F.exposure("r1", user: "u", experiment: "A", variant: "ai", hours: 0),
                     F.event("r2", .converted, user: "u", hours: 1, revenue: 59.99)]
        try await factory.withStore { store in
            #expect(try store.appendAndWait(batch) == AppendResult(stored: 2, duplicates: 0))
            #expect(try store.appendAndWait(batch) == AppendResult(stored: 0, duplicates: 2))
            // The same event twice in one call, once alongside a new one.
            #expect(try store.appendAndWait([batch[1], F.event("r3", .renewed, user: "u", hours: 2, revenue: 59.99), batch[1]])
                    == AppendResult(stored: 1, duplicates: 2))
            #expect(try await store.append([]) == AppendResult())
            let facts = try #require(try store.facts(experiment: "A").first)
            #expect(facts.netRevenue == 59.99 + 59.99)
        }
    }

    /// Converted revenue is stored with the amount and currency as sent; facts sum the converted amount.
    @Test(arguments: storeFactories)
    func convertedRevenueKeepsItsOriginal(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        let parser = EventParser(currency: CurrencyConverter(currency: "USD", rates: ["EUR": 1.08]))
        let paid = try parser.check(Event(id: "p", type: .purchased, userID: "u", timestamp: F.at(1), revenue: 49.99, currency: "EUR")).get()
        try await factory.withStore { store in
            #expect(try store.appendAndWait([F.exposure("x", user: "u", experiment: "A", variant: "ai", hours: 0), paid]) == AppendResult(stored: 2, duplicates: 0))
            #expect(try store.facts(experiment: "A").map(\.netRevenue) == [49.99 * 1.08])
            let stored: [Event]
            switch store {
            case let s as SQLiteEventStore: stored = try s.events(userID: "u")
            case let s as PostgresEventStore: stored = try s.events(userID: "u")
            default: Issue.record("a store this test cannot read events from"); return
            }
            let purchase = try #require(stored.first { $0.id == "p" })
            #expect(purchase == paid)
            #expect(purchase.revenue == 49.99 * 1.08 && purchase.currency == "USD")
            #expect(purchase.originalRevenue == 49.99 && purchase.originalCurrency == "EUR")
        }
    }

    /// The idempotency key is (user_id, event_id).
    @Test(arguments: storeFactories)
    func anEventIDReusedByAnotherUserIsAnotherEvent(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        try await factory.withStore { (store: any EventStore) async throws in
            let shared = [F.exposure("e1", user: "u1", experiment: "A", variant: "ai", hours: 0),
                          F.exposure("e1", user: "u2", experiment: "A", variant: "control", hours: 0),
                          F.event("e2", .purchased, user: "u1", hours: 1, revenue: 9.99),
                          F.event("e2", .purchased, user: "u2", hours: 1, revenue: 4.99)]
            #expect(try store.appendAndWait(shared) == AppendResult(stored: 4, duplicates: 0))
            // The retry of one user's event is stored once, whichever batch it rides in.
            #expect(try store.appendAndWait([shared[2], F.event("e1", .renewed, user: "u3", hours: 2, revenue: 1)])
                    == AppendResult(stored: 1, duplicates: 1))
            #expect(try store.facts(experiment: "A").map(\.variant) == ["ai", "control"])
            #expect(try store.facts(experiment: "A").map(\.netRevenue) == [9.99, 4.99])
        }
    }

    /// Ids are compared by their bytes, as the stores' keys compare them: "é" written as one
    /// code point and as "e" with a combining accent are two ids (Swift's `==` takes them for one).
    @Test(arguments: storeFactories)
    func idsThatDifferOnlyInTheirBytesAreTwoEvents(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        try await factory.withStore { (store: any EventStore) async throws in
            let composed = "r\u{E9}", decomposed = "re\u{301}"
            let batch = [F.exposure("x", user: "u", experiment: "A", variant: "ai", hours: 0),
                         F.event(EventID(composed), .purchased, user: "u", hours: 1, revenue: 9.99),
                         F.event(EventID(decomposed), .purchased, user: "u", hours: 2, revenue: 4.99)]
            #expect(try store.appendAndWait(batch) == AppendResult(stored: 3, duplicates: 0))
            #expect(try store.appendAndWait([batch[2]]) == AppendResult(stored: 0, duplicates: 1))
            #expect(try store.facts(experiment: "A").map(\.netRevenue) == [9.99 + 4.99])
            // The same for user ids: two users, two facts rows.
            let users = [F.exposure("x", user: UserID(composed), experiment: "B", variant: "ai", hours: 0),
                         F.exposure("x", user: UserID(decomposed), experiment: "B", variant: "control", hours: 0)]
            #expect(try store.appendAndWait(users) == AppendResult(stored: 2, duplicates: 0))
            #expect(Set(try store.facts(experiment: "B").map { Array($0.userID.utf8) }) == Set([Array(composed.utf8), Array(decomposed.utf8)]))
            _ = try store.appendAndWait([F.event("p", .purchased, user: UserID(composed), hours: 1, revenue: 1),
                                         F.event("p", .purchased, user: UserID(decomposed), hours: 1, revenue: 2)])
            #expect(try store.netRevenue(experiment: "B", asOf: F.at(10), since: nil, until: nil)
                    == [UserID(composed): 1, UserID(decomposed): 2])
        }
    }

    /// Placement and attributes are kept per (experiment, user) from the first exposure,
    /// and survive the facts being recomputed from the stored events.
    @Test(arguments: storeFactories)
    func theFirstExposuresPlacementAndAttributesAreKept(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        try await factory.withStore { store in
            let first: [(key: String, value: ExposureAttributes.Value)] =
                [("platform", .string("ios")), ("country", .string("GB\t\\é")), ("new_user", .bool(true)), ("sessions", .number(2.5))]
            _ = try store.appendAndWait([F.exposure("x1", user: "u", experiment: "A", variant: "ai", hours: 5,
                                                    placement: "onboarding_end", attributes: [("platform", .string("android"))])])
            _ = try store.appendAndWait([F.exposure("x2", user: "u", experiment: "A", variant: "ai", hours: 6,
                                                    placement: "feature_gate", attributes: [("country", .string("US"))])])
            var facts = try #require(try store.facts(experiment: "A").first)
            #expect(facts.placement == "onboarding_end" && facts.segmentValue("platform") == "android")
            #expect(facts.segmentValue("country") == nil)
            // An earlier exposure arriving late becomes the first; a later purchase (a recomputation
            // from the stored events) keeps it.
            _ = try store.appendAndWait([F.exposure("x0", user: "u", experiment: "A", variant: "ai", hours: 4, attributes: first)])
            _ = try store.appendAndWait([F.event("p1", .purchased, user: "u", hours: 7, revenue: 9.99)])
            facts = try #require(try store.facts(experiment: "A").first)
            #expect(facts.placement == nil && facts.segmentValue("placement") == nil)
            #expect(facts.attributes == ExposureAttributes(first))
            #expect(facts.segmentValue("country") == "GB\t\\é" && facts.segmentValue("new_user") == "true")
            #expect(facts.segmentValue("sessions") == "2.5" && facts.segmentValue("platform") == "ios")
            #expect(facts.netRevenue == 9.99)
            // Another experiment of the same user keeps its own first exposure's.
            _ = try store.appendAndWait([F.exposure("y1", user: "u", experiment: "B", variant: "control", hours: 8,
                                                    placement: "settings", attributes: [("platform", .string("web"))])])
            let other = try #require(try store.facts(experiment: "B").first)
            #expect(other.placement == "settings" && other.segmentValue("platform") == "web")
        }
    }

    @Test(arguments: storeFactories)
    func anExposureIsTheStickyRecord(_ factory: StoreFactory) async throws {
        typealias F = EventFactory
        try await factory.withStore { store in
            let sticky = try store.makeStickyReader(maxIdle: 2)
            #expect(try sticky.exposedVariant(experiment: "A", userID: "u") == nil)
            _ = try store.appendAndWait([F.exposure("x1", user: "u", experiment: "A", variant: "name", hours: 5)])
            #expect(try sticky.exposedVariant(experiment: "A", userID: "u") == "name")
            // A later exposure keeps the first variant; an earlier one that arrives late replaces it.
            _ = try store.appendAndWait([F.exposure("x2", user: "u", experiment: "A", variant: "ai", hours: 6)])
            #expect(try sticky.exposedVariant(experiment: "A", userID: "u") == "name")
            _ = try store.appendAndWait([F.exposure("x3", user: "u", experiment: "A", variant: "control", hours: 4)])
            #expect(try sticky.exposedVariant(experiment: "A", userID: "u") == "control")
            #expect(try sticky.exposedVariant(experiment: "B", userID: "u") == nil)
            #expect(try sticky.exposedVariant(experiment: "A", userID: "v") == nil)
            // Several experiments at once: one answer per id, in the order asked.
            _ = try store.appendAndWait([F.exposure("x4", user: "u", experiment: "B\"{,}", variant: "ai", hours: 1)])
            #expect(try sticky.exposedVariants(experiments: ["B\"{,}", "C", "A"], userID: "u") == ["ai", nil, "control"])
            #expect(try sticky.exposedVariants(experiments: [], userID: "u") == [])
        }
    }

    @Test(arguments: storeFactories)
    func theCopyCacheKeepsLines(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "dog") == nil)
            let at = Timestamp(microseconds: 1_796_083_200_123_456)
            try store.saveCopyLine("Walk with Chorus.", experiment: "A", variant: "ai", brief: "dog", at: at)
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "dog") == CachedCopyLine(line: "Walk with Chorus.", createdAt: at))
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "cat") == nil)
            try store.saveCopyLine("Chorus names every song.", experiment: "A", variant: "ai", brief: "dog", at: at.adding(hours: 1))
            #expect(try store.cachedCopyLine(experiment: "A", variant: "ai", brief: "dog")?.line == "Chorus names every song.")
        }
    }

    /// The oracle data set of the Reporting tests, reported from the store and from the
    /// reference facts with a fixed clock: the JSON must be the same, byte for byte.
    @Test(arguments: storeFactories)
    func reportJSONIsByteIdentical(_ factory: StoreFactory) async throws {
        let oracle = try OracleData.load()
        let reference = ReferenceFacts(oracle.events)
        let generatedAt = Date(timeIntervalSince1970: 1_798_675_200)   // 2026-12-31T00:00:00Z
        let windows: [ReportOptions] = [
            ReportOptions(clock: generatedAt),
            ReportOptions(clock: generatedAt, until: Date(timeIntervalSince1970: 1_797_811_200)),    // 2026-12-21: revenue re-summed
            ReportOptions(clock: generatedAt, since: Date(timeIntervalSince1970: 1_796_515_200), until: Date(timeIntervalSince1970: 1_798_070_400)),
        ]
        try await factory.withStore { store in
            _ = try store.appendAndWait(oracle.events)
            for options in windows {
                let report = try ReportBuilder.report(source: store, experiment: oracle.experiment, options: options)
                let expected = JSONReportRenderer.render(try ReportBuilder.report(source: reference, experiment: oracle.experiment, options: options))
                #expect(report.users > 100)
                #expect(JSONReportRenderer.render(report) == expected, "until \(options.until.map(RFC3339.format) ?? "none")")
            }
        }
    }
}
