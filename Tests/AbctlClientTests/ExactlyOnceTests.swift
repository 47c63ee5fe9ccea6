@testable import AbctlClient
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Events queued by an app that is killed, with the network down, reach the server once it is
/// back, and are stored exactly once.
@Suite struct ExactlyOnceTests {
    typealias F = ClientFixtures

    @Test func killedWithEventsQueuedThenRestartedStoresEachOnce() throws {
        try #require(ClientProbe.isBuilt, "build ClientProbe first (swift build)")
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let user = "probe-\(UUID().uuidString.prefix(8))"

        // An app with the network down logs events one by one; it is killed while still logging.
        let app = Process()
        app.executableURL = URL(fileURLWithPath: ClientProbe.path)
        app.arguments = ["enqueue", "--dir", storage.url.path, "--url", try unreachableURL().absoluteString, "--user", user, "--count", "1000000"]
        let out = Pipe()
        app.standardOutput = out
        try app.run()
        var text = ""
        while text.components(separatedBy: "queued ").count <= 300 {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        kill(app.processIdentifier, SIGKILL)
        app.waitUntilExit()
        text += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // Only whole lines: an id was printed once its event was on disk.
        let acknowledged = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .filter { $0.hasPrefix("queued ") }.map { String($0.dropFirst(7)) }
        #expect(acknowledged.count >= 300)
        #expect(!text.contains("done"))

        // Keep the queue as the kill left it, to replay a crash that loses the acknowledgement below.
        let backup = try TemporaryDirectory()
        defer { backup.remove() }
        for name in ["events.log", "events.acked"] {
            try FileManager.default.copyItem(at: storage.url.appendingPathComponent(name), to: backup.url.appendingPathComponent(name))
        }

        // The app starts again and the server is back.
        let server = try ServeProcess()
        let first = try ClientProbe.run(["flush", "--dir", storage.url.path, "--url", server.url.absoluteString])
        #expect(first.status == 0, "\(first.stdout)")
        let diagnostics = try JSONValue.parse(Array(first.stdout.utf8))
        let stored = Int(diagnostics["events_stored"]?.number ?? -1)
        #expect(diagnostics["queue_depth"]?.number == 0)
        #expect(diagnostics["events_duplicate"]?.number == 0)
        // Every event the app was told is on disk is there; at most the one being written when killed is not.
        #expect(stored >= acknowledged.count && stored <= acknowledged.count + 1)

        func rows() throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for row in try server.query("SELECT event_id, count(*) FROM events WHERE user_id = '\(user)' GROUP BY event_id") {
                counts[row[0]] = Int(row[1])
            }
            return counts
        }
        let inStore = try rows()
        #expect(inStore.count == stored)
        #expect(inStore.values.allSatisfy { $0 == 1 })
        #expect(acknowledged.allSatisfy { inStore[$0] == 1 })

        // A crash after the server stored the batches but before the client recorded it: the same
        // events go again and the server keeps one of each.
        for name in ["events.log", "events.acked"] {
            let target = storage.url.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: backup.url.appendingPathComponent(name), to: target)
        }
        let again = try ClientProbe.run(["flush", "--dir", storage.url.path, "--url", server.url.absoluteString])
        #expect(again.status == 0)
        let replay = try JSONValue.parse(Array(again.stdout.utf8))
        #expect(replay["events_stored"]?.number == 0)
        #expect(replay["events_duplicate"]?.number == Double(stored))
        #expect(try rows() == inStore)
    }

    @Test func queuedEventsAreSentInTheBackgroundOnceTheServerIsBack() async throws {
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let url = try unreachableURL()
        let client = try AbctlClient(configuration: F.configuration(url, storage: storage, sendsAutomatically: true))
        let user: UserID = "background-\(UUID().uuidString.prefix(8))"
        for i in 0..<250 {
            try await client.logPurchase(.trialStarted, userID: user, productID: "p\(i)")
        }
        // Polled with generous limits: the send loop runs on the test process's shared pool,
        // which other tests can hold for seconds.
        var d = await client.diagnostics()
        var limit = ContinuousClock.now + .seconds(60)
        while d.sendFailures < 2 && ContinuousClock.now < limit {
            try await Task.sleep(for: .milliseconds(20))
            d = await client.diagnostics()
        }
        #expect(d.queueDepth == 250)
        #expect(d.sendFailures >= 2)
        #expect(d.lastError?.contains("sending events failed") == true)

        // The server comes back where the client expects it.
        let server = try ServeProcess(port: UInt16(url.port!))
        limit = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < limit {
            d = await client.diagnostics()
            if d.queueDepth == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(d.queueDepth == 0)
        #expect(d.eventsStored == 250)
        #expect(try server.query("SELECT count(*) FROM events WHERE user_id = '\(user)'") == [["250"]])
        await client.close()
    }

    @Test func anEventTheServerRejectsLeavesTheQueueAndTheOthersArrive() async throws {
        let server = try ServeProcess()
        let storage = try TemporaryDirectory()
        defer { storage.remove() }
        let client = try AbctlClient(configuration: F.configuration(server.url, storage: storage))
        let user: UserID = "rejected-\(UUID().uuidString.prefix(8))"
        var events = (0..<6).map { ClientEvent(id: "ok-\($0)", kind: .purchased, userID: user) }
        // An exposure to a variant the experiment does not have: the server answers 422 for the batch.
        events.insert(ClientEvent(id: "bad", kind: .exposure, userID: user, experiment: F.experiment, variant: "no-such-variant"), at: 3)
        #expect(try await client.log(events) == 7)
        #expect(await client.flush())
        let d = await client.diagnostics()
        #expect(d.queueDepth == 0)
        #expect(d.eventsRejected == 1)
        #expect(d.eventsStored == 6)
        #expect(d.lastError?.contains("rejected") == true)
        #expect(try server.query("SELECT event_id FROM events WHERE user_id = '\(user)' ORDER BY event_id").map { $0[0] }
                == (0..<6).map { "ok-\($0)" })
    }
}
