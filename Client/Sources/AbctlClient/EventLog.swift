import ExperimentDefinitions
import Foundation

/// The event queue's files: an append-only log of records and the offset up to which the server
/// has them.
///
/// A record is one line, `CRC32-in-hex SPACE event-json LF`, fsynced before `append` returns.
/// A crash can only tear the last record (a line without its LF); opening the log cuts such a
/// tail off, so every record acknowledged to the app before the crash is read back whole. The
/// acknowledged offset lives in a second file, fsynced after each delivered batch; when every
/// record is delivered the log is emptied. Losing an acknowledgement to a crash only sends a batch
/// again, which the server's idempotency on (user_id, event_id) stores once.
final class EventLog {
    struct Record {
        /// The event's JSON (the line without checksum and LF).
        var json: [UInt8]
        /// Byte offset just past this record's LF.
        var end: UInt64
    }

    /// What opening the log found.
    struct Recovery: Sendable, Equatable {
        /// Bytes of a torn last record that were cut off.
        var tornBytes = 0
        /// Whole lines whose checksum did not match, skipped.
        var corruptRecords = 0
    }

    private let log: FileHandle
    private let ack: FileHandle
    private(set) var pending: [Record] = []
    private(set) var recovery = Recovery()
    private var size: UInt64
    private var acknowledged: UInt64

    init(directory: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        let logURL = directory.appendingPathComponent("events.log"), ackURL = directory.appendingPathComponent("events.acked")
        var created = false
        for url in [logURL, ackURL] where !fm.fileExists(atPath: url.path) {
            guard fm.createFile(atPath: url.path, contents: nil) else { throw QueueError("cannot create \(url.path)") }
            created = true
        }
        if created { Self.syncDirectory(directory) }
        log = try FileHandle(forUpdating: logURL)
        ack = try FileHandle(forUpdating: ackURL)

        let bytes = [UInt8](try Data(contentsOf: logURL))
        size = UInt64(bytes.count)
        let ackText = String(decoding: try Data(contentsOf: ackURL), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        acknowledged = UInt64(ackText) ?? 0
        // Past the end: the log was emptied and the crash came before the offset was reset.
        if acknowledged > size {
            acknowledged = 0
            try writeAcknowledged(0)
        }
        let validEnd = scan(bytes, from: Int(acknowledged))
        if validEnd < bytes.count {
            recovery.tornBytes = bytes.count - validEnd
            try log.truncate(atOffset: UInt64(validEnd))
            try log.synchronize()
            size = UInt64(validEnd)
        }
        try log.seek(toOffset: size)
    }

    deinit {
        try? log.close()
        try? ack.close()
    }

    /// Reads whole records from `start`; returns where the last whole line ends.
    private func scan(_ bytes: [UInt8], from start: Int) -> Int {
        var lineStart = start
        var i = start
        while i < bytes.count {
            if bytes[i] == 0x0A {
                if let json = Self.verified(bytes[lineStart..<i]) {
                    pending.append(Record(json: json, end: UInt64(i + 1)))
                } else {
                    recovery.corruptRecords += 1
                }
                lineStart = i + 1
            }
            i += 1
        }
        return lineStart
    }

    /// The JSON of a line whose checksum matches; nil otherwise.
    private static func verified(_ line: ArraySlice<UInt8>) -> [UInt8]? {
        guard line.count > 9, line[line.startIndex + 8] == 0x20,
              let stored = UInt32(String(decoding: line.prefix(8), as: UTF8.self), radix: 16) else { return nil }
        let json = line.dropFirst(9)
        return CRC32.checksum(json) == stored ? Array(json) : nil
    }

    private static func line(for json: [UInt8]) -> [UInt8] {
        let hex = String(CRC32.checksum(json), radix: 16)
        return Array((String(repeating: "0", count: 8 - hex.count) + hex + " ").utf8) + json + [0x0A]
    }

    /// Appends the events' JSON as records and fsyncs once; on return they survive a crash.
    func append(_ events: [[UInt8]]) throws {
        guard !events.isEmpty else { return }
        var bytes: [UInt8] = []
        var records: [Record] = []
        var end = size
        for json in events {
            let line = Self.line(for: json)
            bytes += line
            end += UInt64(line.count)
            records.append(Record(json: json, end: end))
        }
        do {
            try log.write(contentsOf: bytes)
            try log.synchronize()
        } catch {
            // Leave no half record behind for the next append to follow.
            try? log.truncate(atOffset: size)
            try? log.seek(toOffset: size)
            throw error
        }
        size = end
        pending += records
    }

    /// The first `count` pending records are delivered (or dropped for good): remember that on disk.
    func acknowledge(_ count: Int) throws {
        guard count > 0 else { return }
        let offset = pending[count - 1].end
        pending.removeFirst(count)
        if pending.isEmpty {
            // Empty the log first: a crash before the offset is reset leaves it past the end, which opening handles.
            try log.truncate(atOffset: 0)
            try log.synchronize()
            try log.seek(toOffset: 0)
            size = 0
            try writeAcknowledged(0)
        } else {
            try writeAcknowledged(offset)
        }
    }

    private func writeAcknowledged(_ offset: UInt64) throws {
        // Fixed width, so a rewrite covers the old value whole.
        let text = String(offset)
        try ack.seek(toOffset: 0)
        try ack.write(contentsOf: Array((String(repeating: "0", count: 20 - text.count) + text + "\n").utf8))
        try ack.synchronize()
        acknowledged = offset
    }

    /// fsync of the folder, so a newly created file's name survives a crash too (best effort).
    private static func syncDirectory(_ directory: URL) {
        guard let handle = FileHandle(forReadingAtPath: directory.path) else { return }
        try? handle.synchronize()
        try? handle.close()
    }
}

struct QueueError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
