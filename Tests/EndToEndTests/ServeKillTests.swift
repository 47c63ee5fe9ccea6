import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL under event load loses no acknowledged event.
@Suite(.timeLimit(.minutes(2)))
struct ServeKillTests {
    /// Clients send batches of 100 events; the server is killed mid-load. A second server on the same
    /// store then receives every acknowledged batch again: each of those events must come back as a
    /// duplicate (it is in the store), and none as newly stored.
    @Test func sigkillUnderLoadLosesNoAcknowledgedEvent() async throws {
        let first = try await ServeProcess.start()
        let port = first.port
        let acknowledged = Batches()
        let stop = Flag()
        let group = DispatchGroup()
        for client in 0..<8 {
            group.onOwnThread {
                guard let connection = try? HTTPConnection(port: port, timeoutSeconds: 10) else { return }
                var batch = 0
                while !stop.value.load(ordering: .acquiring) {
                    let body = (0..<100).map {
                        #"{"event_id":"k-\#(client)-\#(batch)-\#($0)","type":"trial_started","user_id":"ku-\#(client)-\#($0)","ts":"2026-12-01T10:00:00Z"}"#
                    }.joined(separator: "\n")
                    guard let reply = try? connection.request("POST", "/v1/events", body: Array(body.utf8)) else { return }
                    if reply.status == 200, reply.json?["stored"] as? Int == 100 { acknowledged.add(body) }
                    batch += 1
                }
            }
        }
        // Let load build up, then kill without warning while requests are in flight.
        #expect(await eventually(within: .seconds(20)) { acknowledged.count >= 300 })
        first.signal(SIGKILL)
        #expect(await first.exit(within: .seconds(10)) != nil)
        stop.value.store(true, ordering: .releasing)
        await group.finished()
        let batches = acknowledged.all
        #expect(batches.count >= 300)

        let second = try await ServeProcess.start(database: first.databasePath)
        let connection = try second.connect()
        var duplicates = 0
        var newlyStored = 0
        for body in batches {
            let reply = try connection.request("POST", "/v1/events", body: Array(body.utf8))
            #expect(reply.status == 200)
            duplicates += reply.json?["duplicate"] as? Int ?? 0
            newlyStored += reply.json?["stored"] as? Int ?? 0
        }
        print("kill test: \(batches.count * 100) events acknowledged before SIGKILL; \(duplicates) found in the store, \(newlyStored) missing")
        #expect(duplicates == batches.count * 100)
        #expect(newlyStored == 0)
    }
}

/// Acknowledged request bodies, shared by client threads.
final class Batches: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String] = []
    func add(_ body: String) { lock.lock(); bodies.append(body); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return bodies.count }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return bodies }
}
