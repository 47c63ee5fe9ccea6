import Foundation

/// Reads a query's rows through a cursor, `batchSize` rows per `FETCH`, in one REPEATABLE READ
/// snapshot, so memory stays flat however many rows there are.
///
/// The next `FETCH` runs on a thread of its own while the caller works through the rows before
/// it: PostgreSQL formats and sends one batch while Swift decodes the previous one, so a large
/// read (a report on a million users) costs about the larger of the two, not their sum. At most
/// one batch waits ahead; the connection is used by one thread at a time (the fetching thread
/// until it ends, then the caller for COMMIT or ROLLBACK).
enum CursorReader {
    static let batchSize = 20_000

    /// Calls `body` with each batch of `sql`'s rows (text parameters), in order.
    static func forEachBatch(on c: Connection, _ sql: String, _ parameters: [String?] = [], context: String,
                             _ body: (ResultSet) throws -> Void) throws {
        try c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", context: context)
        do {
            try c.execute("DECLARE abctl_cursor NO SCROLL CURSOR FOR " + sql, parameters, context: context)
            try readAhead(on: c, context: context, body)
            try c.execute("COMMIT", context: context)
        } catch {
            if c.isHealthy { _ = try? c.execute("ROLLBACK", context: context) }
            throw error
        }
    }

    /// Batches handed from the fetching thread to the caller.
    private final class Handoff: @unchecked Sendable {
        let condition = NSCondition()
        /// A batch, or the error that ended fetching; at most one waits.
        var ready: [Result<ResultSet, any Error>] = []
        var stop = false
        var finished = false
    }

    private static func readAhead(on c: Connection, context: String, _ body: (ResultSet) throws -> Void) throws {
        let handoff = Handoff()
        let fetch = "FETCH \(batchSize) FROM abctl_cursor"
        let thread = Thread {
            defer {
                handoff.condition.lock()
                handoff.finished = true
                handoff.condition.broadcast()
                handoff.condition.unlock()
            }
            while true {
                handoff.condition.lock()
                while !handoff.ready.isEmpty && !handoff.stop { handoff.condition.wait() }
                let stop = handoff.stop
                handoff.condition.unlock()
                if stop { return }
                let batch = Result { try c.execute(fetch, context: context) }
                handoff.condition.lock()
                handoff.ready.append(batch)
                handoff.condition.broadcast()
                handoff.condition.unlock()
                guard case .success(let rows) = batch, rows.count == batchSize else { return }
            }
        }
        thread.name = "abctl-pg-fetch"
        thread.start()
        // Whatever happens to the caller, the fetching thread is done with the connection first.
        defer {
            handoff.condition.lock()
            handoff.stop = true
            handoff.condition.broadcast()
            while !handoff.finished { handoff.condition.wait() }
            handoff.condition.unlock()
        }
        while true {
            handoff.condition.lock()
            while handoff.ready.isEmpty { handoff.condition.wait() }
            let batch = handoff.ready.removeFirst()
            handoff.condition.broadcast()
            handoff.condition.unlock()
            let rows = try batch.get()
            try body(rows)
            if rows.count < batchSize { return }
        }
    }
}
