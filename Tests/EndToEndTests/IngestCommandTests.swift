import Foundation
import Testing
import Events
import SQLiteStore
import TestSupport

/// These tests run the built `abctl` (see `Abctl`): `swift build` first, or set ABCTL_BIN.
@Suite(.serialized) struct IngestCommandTests {
    @Test func reportsCountsAndEachRejectedLine() async throws {
        try await withTemporaryDirectory { dir in
            let lines = [
                #"{"event_id":"e1","type":"exposure","user_id":"u1","experiment":"exp","variant":"a","ts":"2026-12-01T10:00:00Z"}"#,
                #"{"event_id":"e2","type":"trial_started","user_id":"u1","ts":"2026-12-01T10:01:00Z"}"#,
                #"{"event_id":"e3","type":"upgraded","user_id":"u1","ts":"2026-12-01T10:02:00Z"}"#,
                #"{"event_id":"e2","type":"trial_started","user_id":"u1","ts":"2026-12-01T10:01:00Z"}"#,
                "",
                #"{"event_id":"e4","type":"cancelled","user_id":"u1","ts":"yesterday"}"#,
                #"{"event_id":"e5","type":"cancelled","user_id":"u1","ts":"2026-12-01T11:00:00Z"}"#,
            ]
            let file = dir.path("events.ndjson")
            try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let db = dir.path("abctl.sqlite")
            let out = try await Abctl.run(["ingest", file, "--db", db], in: dir.url.path)
            #expect(out.status == 1)
            #expect(out.stdout == "stored 3, duplicate 1, rejected 2\n")
            #expect(out.stderr.contains("3: type: unknown event type 'upgraded'"))
            #expect(out.stderr.contains("6: ts: not an RFC 3339 timestamp: 'yesterday'"))
            let store = try SQLiteEventStore(path: db)
            defer { store.close() }
            let facts = try #require(try store.facts(experiment: "exp").first)
            #expect(facts.isDay0Cancel())

            // Standard input, and ABCTL_DB instead of --db; all duplicates now, all good: exit 0.
            let again = try await Abctl.run(["ingest", "-"], in: dir.url.path, stdin: lines[0] + "\n" + lines[1] + "\n",
                                            environment: ["ABCTL_DB": db])
            #expect(again.status == 0)
            #expect(again.stdout == "stored 0, duplicate 2, rejected 0\n")

            // The idempotency key is (user_id, event_id): e1 and e2 again, under another user, are that user's events.
            let otherUser = try await Abctl.run(["ingest", "-"], in: dir.url.path, stdin: (lines[0] + "\n" + lines[1]).replacingOccurrences(of: "u1", with: "u2"),
                                                environment: ["ABCTL_DB": db])
            #expect(otherUser.stdout == "stored 2, duplicate 0, rejected 0\n")
            #expect(try store.facts(experiment: "exp").map(\.userID) == ["u1", "u2"])
        }
    }

    @Test func checksExposuresAgainstTheExperimentsFolder() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.path("Experiments")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // A valid folder: the real validator runs before any event is read.
            let paywall = #"{"offering":"o","trial_days":3,"copy":{"strategy":"static","text":"x"}}"#
            try #"{"$schema":"schema.json","id":"exp","name":"n","status":"running","variants":[{"key":"a","paywall":\#(paywall)},{"key":"b","paywall":\#(paywall)}]}"#
                .write(toFile: folder + "/exp.json", atomically: true, encoding: .utf8)
            try #"{"currency":"USD","offerings":{"o":{"plans":{"m":{"product_id":"o.m","price":9.99,"period":"P1M"}}}}}"#
                .write(toFile: folder + "/products.json", atomically: true, encoding: .utf8)
            let input = [
                #"{"event_id":"e1","type":"exposure","user_id":"u1","experiment":"exp","variant":"a","ts":"2026-12-01T10:00:00Z"}"#,
                #"{"event_id":"e2","type":"exposure","user_id":"u2","experiment":"exp","variant":"zzz","ts":"2026-12-01T10:00:00Z"}"#,
            ].joined(separator: "\n")
            let out = try await Abctl.run(["ingest", "-", "--db", dir.path("db.sqlite"), "--experiments", folder], stdin: input)
            #expect(out.status == 1)
            #expect(out.stdout == "stored 1, duplicate 0, rejected 1\n")
            #expect(out.stderr.contains("2: variant: experiment 'exp' has no variant 'zzz'"))
            // An experiment the folder does not have: listed with the nearest id; the exposure left
            // out, the payment stored without it.
            let unknown = [
                #"{"event_id":"e3","type":"exposure","user_id":"u3","experiment":"exq","variant":"a","ts":"2026-12-01T10:00:00Z"}"#,
                #"{"event_id":"e4","type":"purchased","user_id":"u3","experiment":"exq","revenue":9.99,"ts":"2026-12-01T10:01:00Z"}"#,
            ].joined(separator: "\n")
            let ignored = try await Abctl.run(["ingest", "-", "--db", dir.path("db.sqlite"), "--experiments", folder], stdin: unknown)
            #expect(ignored.status == 0, "\(ignored.stderr)")
            #expect(ignored.stdout == "stored 1, duplicate 0, rejected 0, ignored 2\n")
            #expect(ignored.stderr == "1: ignored: unknown_experiment: no experiment 'exq' in the folder (did you mean 'exp'?); the exposure is not stored\n"
                    + "2: ignored: unknown_experiment: no experiment 'exq' in the folder (did you mean 'exp'?); the purchased event is stored without it\n",
                    "\(ignored.stderr)")
        }
    }

    @Test func storeFailuresExitWithThree() async throws {
        try await withTemporaryDirectory { dir in
            let out = try await Abctl.run(["ingest", "-", "--db", dir.url.path], stdin: "")
            #expect(out.status == 3)
            #expect(out.stderr.contains("abctl: error: cannot open the event store"))
            let usage = try await Abctl.run(["ingest"])
            #expect(usage.status == 2)
        }
    }

    /// Kills `abctl ingest` with SIGKILL at random moments, then ingests the same file again:
    /// the store must hold exactly the right events and facts, and pass `PRAGMA integrity_check`.
    @Test func survivesSIGKILLAndReingest() async throws {
        try await withTemporaryDirectory { dir in
            let seed = UInt64(Date().timeIntervalSince1970)
            var rng = SeededGenerator(seed: seed)
            let (text, goodEvents, badLines) = Self.syntheticFile(users: 20000, rng: &rng)
            let file = dir.path("events.ndjson")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let db = dir.path("crash.sqlite")
            let environment = ["ABCTL_INGEST_COMMIT_EVERY": "1500"]

            // How long a whole run takes here, so the kills land spread over a run.
            let clock = ContinuousClock()
            let started = clock.now
            // Run where no Experiments/ folder is, so the synthetic experiments are not checked against the shipped ones.
            let timing = try await Abctl.run(["ingest", file, "--db", dir.path("timing.sqlite")], in: dir.url.path, environment: environment)
            #expect(timing.status == 1)
            var runMilliseconds = Int((clock.now - started) / .milliseconds(1))

            var killedMidRun = 0
            var committed = false
            // Five kills at random moments; on a loaded machine they may all land before the first
            // commit, so up to five more come, later in the run until one has committed something,
            // and at random again until two runs were cut short.
            for attempt in 0..<10 {
                if attempt >= 5 && committed && killedMidRun >= 2 { break }
                let wait = attempt < 5 || committed ? Int.random(in: runMilliseconds / 20...runMilliseconds / 2, using: &rng)
                                                    : runMilliseconds * (attempt - 2) / 5
                let began = clock.now
                let child = try ChildProcess(Abctl.path, ["ingest", file, "--db", db],
                                             environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, in: dir.url.path)
                if await child.exit(within: .milliseconds(wait)) != nil {
                    // Done before its kill: runs go quicker now than the timing run did (a load that
                    // passed), so later kills are drawn over this run's length.
                    runMilliseconds = min(runMilliseconds, Int((clock.now - began) / .milliseconds(1)))
                }
                await child.stop()
                if child.endedBySignal { killedMidRun += 1 }
                let store = try SQLiteEventStore(path: db)
                #expect(try store.integrityCheck() == "ok")
                let storedSoFar = try store.counts().events
                committed = committed || storedSoFar > 0
                // Facts were committed with their events: rebuilding facts from exactly the stored
                // events gives the same rows.
                var stored: [Event] = []
                try store.forEachEvent { stored.append($0) }
                let rebuilt = try SQLiteEventStore(path: dir.path("rebuilt-\(UUID().uuidString).sqlite"))
                _ = try rebuilt.appendAndWait(stored)
                for experiment in ["copy", "trial", "price"] {
                    #expect(try store.facts(experiment: experiment) == rebuilt.facts(experiment: experiment))
                }
                rebuilt.close()
                store.close()
            }
            #expect(killedMidRun >= 2, "the file was ingested before most kills; make it larger")

            let final = try await Abctl.run(["ingest", file, "--db", db], in: dir.url.path, environment: environment)
            #expect(final.status == 1)
            let counts = final.stdout.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            #expect(counts.count == 3)
            #expect(counts[0] + counts[1] == goodEvents.count)
            #expect(counts[2] == badLines)
            // Earlier, killed runs committed part of the file: more duplicates than the retries alone.
            let retries = goodEvents.count - Set(goodEvents.map(\.id)).count
            #expect(counts[1] > retries, "no killed run committed anything; the test did not exercise recovery")

            // The reference: the same events into a fresh store, in process, in one go.
            let reference = try SQLiteEventStore(path: dir.path("reference.sqlite"))
            defer { reference.close() }
            _ = try reference.appendAndWait(goodEvents)
            let store = try SQLiteEventStore(path: db)
            defer { store.close() }
            #expect(try store.integrityCheck() == "ok")
            #expect(try store.counts() == reference.counts())
            #expect(try store.experiments() == reference.experiments())
            for experiment in try reference.experiments().map(\.experiment) {
                #expect(try store.facts(experiment: experiment) == reference.facts(experiment: experiment))
            }
            print("crash test (seed \(seed)): run takes \(runMilliseconds) ms; \(killedMidRun) kills mid-run; final run: \(final.stdout)", terminator: "")
        }
    }

    /// Users with exposures, trials, cancels, purchases and refunds, in time order with some
    /// late events, a few retried (duplicate) lines and a few bad lines.
    static func syntheticFile(users: Int, rng: inout SeededGenerator) -> (String, [Event], Int) {
        let parser = EventParser()
        var lines: [(Double, String)] = []
        func line(_ id: String, _ type: String, _ user: String, _ hours: Double, _ extra: String = "") {
            let ts = EventFactory.at(hours).rfc3339
            let arrival = Double.random(in: 0..<1, using: &rng) < 0.05 ? hours + Double.random(in: 0...200, using: &rng) : hours
            lines.append((arrival, #"{"event_id":"\#(id)","type":"\#(type)","user_id":"\#(user)","ts":"\#(ts)"\#(extra)}"#))
        }
        for u in 0..<users {
            let user = "user\(u)"
            let t = Double.random(in: 0..<240, using: &rng)
            let experiments = ["copy", "trial", "price"].shuffled(using: &rng).prefix(Int.random(in: 1...2, using: &rng))
            for (k, e) in experiments.enumerated() {
                line("\(user)-x\(k)", "exposure", user, t + Double(k), #","experiment":"\#(e)","variant":"\#(["a", "b"].randomElement(using: &rng)!)","copy_source":"static""#)
            }
            if Double.random(in: 0..<1, using: &rng) < 0.4 {
                line("\(user)-t", "trial_started", user, t + 0.2)
                if Bool.random(using: &rng) { line("\(user)-c", "cancelled", user, t + Double.random(in: 0.3...72, using: &rng)) }
                if Bool.random(using: &rng) { line("\(user)-v", "converted", user, t + 168, #","revenue":59.99"#) }
            } else if Double.random(in: 0..<1, using: &rng) < 0.1 {
                line("\(user)-p", "purchased", user, t - 1, #","revenue":9.99"#)    // some before the exposure
                line("\(user)-r", "refunded", user, t + 5, #","revenue":9.99"#)
            }
        }
        lines.sort { $0.0 < $1.0 }
        var text: [String] = lines.map(\.1)
        var bad = 0
        for i in stride(from: 100, to: text.count, by: 997) {
            text.insert(#"{"event_id":"bad\#(i)","type":"nope","user_id":"u","ts":"2026-12-01T00:00:00Z"}"#, at: i)
            bad += 1
        }
        for i in stride(from: 50, to: text.count, by: 401) { text.insert(text[i - 40], at: i) }   // retries
        var good: [Event] = []
        bad = 0
        for l in text {
            switch parser.parse(line: l) {
            case .success(let e)?: good.append(e)
            case .failure?: bad += 1
            case nil: break
            }
        }
        return (text.joined(separator: "\n") + "\n", good, bad)
    }
}
