@testable import AbctlClient
import ExperimentDefinitions
import Foundation
import Synchronization
import TestSupport
import Testing

/// A device clock the test moves.
final class TestClock: Sendable {
    private let now: Mutex<Date>
    init(_ start: Date) { now = Mutex(start) }
    var date: Date { now.withLock { $0 } }
    func set(_ date: Date) { now.withLock { $0 = date } }
    var read: @Sendable () -> Date { { self.date } }
}

/// What a test's logger heard.
final class HeardLog: Sendable {
    private let lines = Mutex<[(ClientLogLevel, String)]>([])
    var logger: ClientLogger { { level, message in self.lines.withLock { $0.append((level, message)) } } }
    var all: [(ClientLogLevel, String)] { lines.withLock { $0 } }
}

/// Cached answers expire (24 h by default, at once when the experiment stops, ships or is
/// stopped by a safeguard); 401 and 403 are said aloud with the missing scope; a device clock
/// ahead of the server's is corrected by the `Date` header's offset.
@Suite struct ExpiryAndLoudFailureTests {
    typealias F = ClientFixtures

    static func configuration(_ url: URL, storage: TemporaryDirectory, clock: TestClock, log: HeardLog = HeardLog(),
                              apiKey: String? = nil) -> ClientConfiguration {
        var c = PlacementAnswerTests.configuration(url, storage: storage, apiKey: apiKey)
        c.clock = clock.read
        c.logger = log.logger
        return c
    }

    @Test func anAnswerCachedAtTIsUsedUntilTPlus24HoursThenTheDefaultUntilRefreshed() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let t = Date()
        let clock = TestClock(t)
        let dead = try unreachableURL()
        let server = try await ServeProcess.start()
        let placement = PlacementQuery(userID: "walker-9", placement: "onboarding_end", attributes: PlacementAnswerTests.ios)

        let online = try AbctlClient(configuration: Self.configuration(server.url, storage: storage, clock: clock))
        let served = await online.paywall(for: F.query(F.templateUser))
        #expect(served.source == .server && served.variant == "name")
        let servedAtPlacement = await online.paywall(for: placement)
        #expect(servedAtPlacement.source == .server)

        let offline = try AbctlClient(configuration: Self.configuration(dead, storage: storage, clock: clock))
        clock.set(t.addingTimeInterval(24 * 3600 - 60))
        let cached = await offline.paywall(for: F.query(F.templateUser))
        #expect(cached.source == .cache && cached.variant == "name")
        let cachedAtPlacement = await offline.paywall(for: placement)
        #expect(cachedAtPlacement.source == .cache && cachedAtPlacement.variant == servedAtPlacement.variant)

        // Past T + 24 h: the bundled defaults, and the answers say why the server was not used.
        clock.set(t.addingTimeInterval(24 * 3600 + 1))
        let expired = await offline.paywall(for: F.query(F.templateUser))
        #expect(expired.source == .default && expired.variant == nil && expired.reason.code == .unreachable)
        #expect(expired.copy.text == "Bundled: hear every bird.")
        let expiredAtPlacement = await offline.paywall(for: placement)
        #expect(expiredAtPlacement.source == .default && expiredAtPlacement.variant == nil)

        // The server answers again at T + 25 h: refreshed, and good for another 24 h from then.
        clock.set(t.addingTimeInterval(25 * 3600))
        #expect(await online.paywall(for: F.query(F.templateUser)).source == .server)
        #expect(await online.paywall(for: placement).source == .server)
        let restarted = try AbctlClient(configuration: Self.configuration(dead, storage: storage, clock: clock))
        clock.set(t.addingTimeInterval(48 * 3600))
        #expect(await restarted.paywall(for: F.query(F.templateUser)).source == .cache)
        #expect(await restarted.paywall(for: placement).source == .cache)
        clock.set(t.addingTimeInterval(49 * 3600 + 1))
        #expect(await restarted.paywall(for: F.query(F.templateUser)).source == .default)

        // The lifetime is the app's to choose.
        var shortLived = Self.configuration(dead, storage: storage, clock: clock)
        shortLived.cacheLifetime = .seconds(3600)
        clock.set(t.addingTimeInterval(25 * 3600 + 1800))
        #expect(await (try AbctlClient(configuration: shortLived)).paywall(for: F.query(F.templateUser)).source == .cache)
        clock.set(t.addingTimeInterval(26 * 3600 + 1))
        #expect(await (try AbctlClient(configuration: shortLived)).paywall(for: F.query(F.templateUser)).source == .default)
        await server.stop()
    }

    /// A user in an arm, another user in an arm, then the experiment ships: the first user's next
    /// answer is the winner's paywall with no arm, kept as such; the second user's kept arm is gone
    /// at once (the bundled default offline), though only 1 hour old.
    @Test func aShippedAnswerReplacesTheCachedArmAtOnce() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let t = Date()
        let clock = TestClock(t)
        let dead = try unreachableURL()
        let running = try await ServeProcess.start()
        let client = try AbctlClient(configuration: Self.configuration(running.url, storage: storage, clock: clock))
        var inArm: [PaywallAnswer] = []
        for n in 0..<200 where inArm.count < 2 {
            let a = await client.paywall(for: PaywallQuery(userID: UserID("walker-\(n)"), experiment: F.experiment,
                                                           attributes: ["platform": .string("ios")]))
            if a.variant != nil && a.variant != "control" { inArm.append(a) }
        }
        try #require(inArm.count == 2)
        await running.stop()

        let shipped = try await ServeProcess.start { folder in
            let path = folder + "/chorus-paywall-copy.json"
            var text = try String(contentsOfFile: path, encoding: .utf8)
            text = text.replacingOccurrences(of: #""status": "running""#, with: #""status": "shipped", "winner": "control""#)
            text = text.replacingOccurrences(of: #""end": null"#, with: #""end": "2026-11-20T00:00:00Z""#)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let online = try AbctlClient(configuration: Self.configuration(shipped.url, storage: storage, clock: clock))
        clock.set(t.addingTimeInterval(3600))
        let first = inArm[0].userID, second = inArm[1].userID
        let now = await online.paywall(for: PaywallQuery(userID: first, experiment: F.experiment, attributes: ["platform": .string("ios")]))
        #expect(now.source == .server && now.variant == nil && now.reason.detail == "shipped", "\(now.source) \(now.reason)")
        #expect(now.copy.text == "Hear every bird on every walk.")
        #expect(try await online.logExposure(now) == false)
        await shipped.stop()

        let offline = try AbctlClient(configuration: Self.configuration(dead, storage: storage, clock: clock))
        let firstOffline = await offline.paywall(for: PaywallQuery(userID: first, experiment: F.experiment))
        #expect(firstOffline.source == .cache && firstOffline.variant == nil && firstOffline.copy.text == "Hear every bird on every walk.")
        let secondOffline = await offline.paywall(for: PaywallQuery(userID: second, experiment: F.experiment))
        #expect(secondOffline.source == .default && secondOffline.variant == nil)
    }

    /// A safeguard stop of one arm: the stopped user's next answer (`safeguard`, the control's
    /// paywall, no arm) expires at once every cached answer naming the experiment, in both caches:
    /// another user's kept arm (experiment form) and a third user's placement answer, though only an
    /// hour old, give way to the bundled default offline.
    @Test func aSafeguardAnswerExpiresBothCachesAtOnce() async throws {
        let experiment = "chorus-trial-length", android: [String: JSONValue] = ["platform": .string("android")]
        let folder = TemporaryFolder(prefix: "abctl-safeguard-expiry")
        let db = folder.path + "/events.sqlite"
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let t = Date()
        let clock = TestClock(t)
        let before = try await ServeProcess.start(database: db)
        let client = try AbctlClient(configuration: Self.configuration(before.url, storage: storage, clock: clock))
        var stopped: PaywallAnswer?, other: PaywallAnswer?
        for n in 0..<400 where stopped == nil || other == nil {
            let a = await client.paywall(for: PaywallQuery(userID: UserID("walker-\(n)"), experiment: experiment, attributes: android))
            if a.variant == "trial-7d" && stopped == nil { stopped = a } else if a.variant != nil && other == nil { other = a }
        }
        let (stoppedUser, otherUser) = (try #require(stopped).userID, try #require(other).userID)
        var atPlacement: PlacementAnswer?
        for n in 0..<400 where atPlacement == nil {
            let a = await client.paywall(for: PlacementQuery(userID: UserID("hiker-\(n)"), placement: "onboarding_end", attributes: android))
            if a.inExperiment && a.experiment == experiment { atPlacement = a }
        }
        let placementUser = try #require(atPlacement).userID
        await before.stop()

        // The arm is stopped (as `abctl safeguards check` records it) before the server starts again.
        let figures = #"{"control_users": 300, "control_count": 10, "arm_users": 300, "arm_count": 60, "difference": 0.17, "level": 0.95, "mixing_variance": 0.01, "interval": [0.1, 0.2]}"#
        _ = try await before.query("""
            INSERT INTO safeguard_stops (id, experiment, arm, metric, action, stopped_ts, figures)
            VALUES ('s1', '\(experiment)', 'trial-7d', 'day0_cancel_rate', 'stop_arm', \(Int64(t.timeIntervalSince1970 * 1e6)), '\(figures)')
            """)
        let after = try await ServeProcess.start(database: db)
        let online = try AbctlClient(configuration: Self.configuration(after.url, storage: storage, clock: clock))
        clock.set(t.addingTimeInterval(3600))
        let now = await online.paywall(for: PaywallQuery(userID: stoppedUser, experiment: experiment, attributes: android))
        #expect(now.source == .server && now.variant == nil && now.reason.detail == "safeguard", "\(now.source) \(now.reason)")
        await after.stop()

        let offline = try AbctlClient(configuration: Self.configuration(try unreachableURL(), storage: storage, clock: clock))
        let otherOffline = await offline.paywall(for: PaywallQuery(userID: otherUser, experiment: experiment, attributes: android))
        #expect(otherOffline.source == .default && otherOffline.variant == nil, "\(otherOffline.source) \(String(describing: otherOffline.variant))")
        let placementOffline = await offline.paywall(for: PlacementQuery(userID: placementUser, placement: "onboarding_end", attributes: android))
        #expect(placementOffline.source == .default && placementOffline.variant == nil, "\(placementOffline.source)")
        withExtendedLifetime(folder) {}
    }

    /// The placement form says so too: a stopped experiment's placement answer (`not_running`)
    /// expires another user's arm kept by the experiment form at once.
    @Test func aPlacementAnswerSayingNotRunningExpiresTheExperimentsCachedArms() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let t = Date()
        let clock = TestClock(t)
        let running = try await ServeProcess.start()
        let client = try AbctlClient(configuration: Self.configuration(running.url, storage: storage, clock: clock))
        var kept: PaywallAnswer?
        for n in 0..<200 where kept == nil {
            let a = await client.paywall(for: PaywallQuery(userID: UserID("walker-\(n)"), experiment: F.experiment, attributes: ["platform": .string("ios")]))
            if a.variant != nil { kept = a }
        }
        let keptUser = try #require(kept).userID
        await running.stop()

        let stopped = try await ServeProcess.start { folder in
            let path = folder + "/chorus-paywall-copy.json"
            var text = try String(contentsOfFile: path, encoding: .utf8)
            text = text.replacingOccurrences(of: #""status": "running""#, with: #""status": "stopped""#)
            text = text.replacingOccurrences(of: #""end": null"#, with: #""end": "2026-11-20T00:00:00Z""#)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let online = try AbctlClient(configuration: Self.configuration(stopped.url, storage: storage, clock: clock))
        clock.set(t.addingTimeInterval(3600))
        let now = await online.paywall(for: PlacementQuery(userID: "someone-else", placement: "onboarding_end", attributes: PlacementAnswerTests.ios))
        #expect(now.source == .server && now.experiment == F.experiment && now.reason.detail == "not_running", "\(now.source) \(now.reason)")
        await stopped.stop()

        let offline = try AbctlClient(configuration: Self.configuration(try unreachableURL(), storage: storage, clock: clock))
        let keptOffline = await offline.paywall(for: PaywallQuery(userID: keptUser, experiment: F.experiment))
        #expect(keptOffline.source == .default && keptOffline.variant == nil, "\(keptOffline.source) \(String(describing: keptOffline.variant))")
    }

    @Test func a403IsLoggedAndKeptWithTheMissingScope() async throws {
        let keys = TemporaryFolder()
        let keysFile = keys.write("keys", "assign-only assign\ningest-only ingest\n")
        let server = try await ServeProcess.start(arguments: ["--keys-file", keysFile])
        let clock = TestClock(Date())

        // Assigns fine, but may not post events: the exposure's batch is refused for want of `ingest`.
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let log = HeardLog()
        let client = try AbctlClient(configuration: Self.configuration(server.url, storage: storage, clock: clock, log: log, apiKey: "assign-only"))
        let answer = await client.paywall(for: F.query(F.templateUser))
        #expect(answer.source == .server)
        #expect(try await client.logExposure(answer))
        _ = await client.flush()
        var d = await client.diagnostics()
        let failure = try #require(d.lastAuthFailure)
        #expect(failure.status == 403 && failure.missingScope == "ingest" && failure.path == "v1/events")
        #expect(d.authFailures == 1 && d.eventsRefused == 1)
        #expect(d.json["last_auth_failure"]?["missing_scope"] == .string("ingest"))
        #expect(log.all.contains { $0.0 == .error && $0.1.contains("403") && $0.1.contains("'ingest'") })

        // The other way round: asking for a paywall needs `assign`.
        let log2 = HeardLog()
        let other = try AbctlClient(configuration: Self.configuration(server.url, storage: try TemporaryDirectory(), clock: clock, log: log2,
                                                                      apiKey: "ingest-only"))
        let refused = await other.paywall(for: F.query(F.templateUser))
        #expect(refused.source == .default && refused.reason.code == .serverError)
        d = await other.diagnostics()
        #expect(d.lastAuthFailure?.status == 403 && d.lastAuthFailure?.missingScope == "assign" && d.lastAuthFailure?.path == "v1/assign")
        #expect(log2.all.contains { $0.0 == .error && $0.1.contains("'assign'") })

        // A key the server does not know: 401, said aloud too, and the events stay queued.
        let log3 = HeardLog()
        let unknown = try AbctlClient(configuration: Self.configuration(server.url, storage: try TemporaryDirectory(), clock: clock, log: log3,
                                                                        apiKey: "nobody"))
        try await unknown.logPurchase(.purchased, userID: "u", productID: "chorus.plus.annual", revenue: 59.99)
        #expect(await unknown.flush() == false)
        d = await unknown.diagnostics()
        #expect(d.lastAuthFailure?.status == 401 && d.lastAuthFailure?.missingScope == "ingest" && d.queueDepth == 1)
        #expect(log3.all.contains { $0.0 == .error && $0.1.contains("401") })
        await server.stop()
        withExtendedLifetime(keys) {}
    }

    /// The device's clock an hour ahead: every event would carry a `ts` an hour in the server's
    /// future (the server refuses more than 10 minutes). Corrected by the `Date` header's offset,
    /// whether the offset was known when the event was logged (after an assign) or not yet.
    @Test func aDeviceClockAnHourAheadIsCorrectedByTheServersDateHeader() async throws {
        let server = try await ServeProcess.start()
        let ahead = TestClock(Date().addingTimeInterval(3600))

        // Nothing heard from the server yet: the client asks `/healthz` for its time before the
        // first send (and, should a server refuse the batch first, sends it again corrected).
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let log = HeardLog()
        let cold = try AbctlClient(configuration: Self.configuration(server.url, storage: storage, clock: ahead, log: log))
        try await cold.logPurchase(.trialStarted, userID: "skewed-1", productID: "chorus.plus.annual")
        #expect(await cold.flush())
        var d = await cold.diagnostics()
        #expect(d.eventsStored == 1 && d.eventsRejected == 0 && d.timestampsCorrected == 1)
        let offset = try #require(d.clockOffsetSeconds)
        #expect(abs(offset + 3600) < 5)
        #expect(log.all.contains { $0.0 == .warning && $0.1.contains("ahead of the server") })

        // After an assign the offset is known: the exposure is corrected before it is queued.
        let warm = try AbctlClient(configuration: Self.configuration(server.url, storage: try TemporaryDirectory(), clock: ahead))
        let answer = await warm.paywall(for: F.query(F.templateUser))
        #expect(try await warm.logExposure(answer))
        #expect(await warm.flush())
        d = await warm.diagnostics()
        #expect(d.eventsStored == 1 && d.timestampsCorrected == 1)

        // Both stored at the server's time, not the device's.
        let rows = try await server.query("SELECT ts FROM events WHERE user_id IN ('skewed-1', '\(F.templateUser.text)')")
        #expect(rows.count == 2)
        for row in rows {
            let micros = try #require(Double(row.first ?? ""))
            #expect(abs(micros / 1e6 - Date().timeIntervalSince1970) < 120, "stored ts \(row)")
        }

        // A clock a few minutes off is within the server's tolerance and left alone.
        let slightly = TestClock(Date().addingTimeInterval(240))
        let fine = try AbctlClient(configuration: Self.configuration(server.url, storage: try TemporaryDirectory(), clock: slightly))
        _ = await fine.paywall(for: F.query(F.templateUser))
        try await fine.logPurchase(.trialStarted, userID: "skewed-2", productID: "chorus.plus.annual")
        #expect(await fine.flush())
        #expect(await fine.diagnostics().timestampsCorrected == 0)
        await server.stop()
    }

    @Test func httpDatesAreRead() {
        #expect(ServerClock.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == RFC3339.parse("1994-11-06T08:49:37Z"))
        #expect(ServerClock.parseHTTPDate("Thu, 03 Dec 2026 19:20:12 GMT") == RFC3339.parse("2026-12-03T19:20:12Z"))
        #expect(ServerClock.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(ServerClock.parseHTTPDate("") == nil)
    }
}
