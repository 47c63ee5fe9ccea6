@testable import AbctlClient
import Foundation

/// Stands between an `EventOutbox` and a live server: holds each send until the test lets it go,
/// fails the sends it is told to, and counts how many were open at once. With it a test forces
/// the order in which a flush, the background loop and new events meet.
actor SendGate {
    private let connection: ServerConnection
    private var holding = true
    private var held: [CheckedContinuation<Void, Never>] = []
    private var failing: Set<Int> = []
    /// Sends begun, counted from 1.
    private(set) var started = 0
    private(set) var open = 0
    private(set) var mostOpenAtOnce = 0

    init(server: URL) {
        connection = ServerConnection(baseURL: server, apiKey: nil)
    }

    /// The outbox's poster: through the gate to `POST /v1/events`.
    nonisolated var poster: EventOutbox.Poster {
        { body in try await self.send(body) }
    }

    /// Lets the held sends go, and every later one.
    func openGate() {
        holding = false
        for c in held { c.resume() }
        held = []
    }

    /// Lets the one longest-held send go; later sends are still held.
    func releaseOne() {
        guard !held.isEmpty else { return }
        held.removeFirst().resume()
    }

    /// Send number `n` (from 1) fails as a dropped connection would, without reaching the server.
    func fail(send n: Int) { failing.insert(n) }

    var heldCount: Int { held.count }

    /// Send number `n` is the one held, alone.
    func isHolding(send n: Int) -> Bool { started == n && held.count == 1 }

    struct Dropped: Error {}

    private func send(_ body: [UInt8]) async throws -> (status: Int, body: [UInt8]) {
        started += 1
        let number = started
        open += 1
        mostOpenAtOnce = max(mostOpenAtOnce, open)
        defer { open -= 1 }
        if holding { await withCheckedContinuation { held.append($0) } }
        if failing.contains(number) { throw Dropped() }
        return try await connection.post("v1/events", body: body, contentType: "application/x-ndjson", deadline: .seconds(30))
    }
}

/// Polls `condition` until it holds or `seconds` pass (generous: other suites share the pool).
func eventually(within seconds: Int = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let limit = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < limit {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
