@testable import AbctlClient
import Foundation
import TestSupport
import Testing

/// The queue's files: records survive reopening, a torn tail is cut, a damaged record is skipped.
@Suite struct EventLogTests {
    static func event(_ n: Int) -> [UInt8] {
        Array(ClientEvent(id: "e\(n)", kind: .purchased, userID: "u1", timestamp: Date(timeIntervalSince1970: 1_700_000_000)).json.serialized().utf8)
    }

    static func ids(_ log: EventLog) -> [String] {
        log.pending.compactMap { try? JSONValue.parse($0.json)["event_id"]?.string }
    }

    @Test func recordsSurviveReopening() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let log = try EventLog(directory: dir.url)
            try log.append([Self.event(1), Self.event(2)])
            try log.append([Self.event(3)])
        }
        let reopened = try EventLog(directory: dir.url)
        #expect(Self.ids(reopened) == ["e1", "e2", "e3"])
        #expect(reopened.recovery == EventLog.Recovery())
    }

    @Test func aTornLastRecordIsCutAndEarlierOnesKept() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.url.appendingPathComponent("events.log")
        do {
            let log = try EventLog(directory: dir.url)
            try log.append([Self.event(1), Self.event(2)])
        }
        let whole = try Data(contentsOf: file)
        // A crash in the middle of the third record's write: part of a line, no LF.
        let handle = try FileHandle(forUpdating: file)
        try handle.seekToEnd()
        let torn = Data("1a2b3c4d {\"event_id\":\"e3\",\"ty".utf8)
        try handle.write(contentsOf: torn)
        try handle.close()

        let reopened = try EventLog(directory: dir.url)
        #expect(Self.ids(reopened) == ["e1", "e2"])
        #expect(reopened.recovery.tornBytes == torn.count)
        #expect(try Data(contentsOf: file) == whole)
        try reopened.append([Self.event(4)])
        #expect(Self.ids(try EventLog(directory: dir.url)) == ["e1", "e2", "e4"])
    }

    @Test func aRecordWithABadChecksumIsSkipped() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.url.appendingPathComponent("events.log")
        do {
            let log = try EventLog(directory: dir.url)
            try log.append([Self.event(1), Self.event(2), Self.event(3)])
        }
        var bytes = [UInt8](try Data(contentsOf: file))
        let secondLine = bytes.firstIndex(of: 0x0A)! + 1
        bytes[secondLine + 20] ^= 0x01
        try Data(bytes).write(to: file)
        let reopened = try EventLog(directory: dir.url)
        #expect(Self.ids(reopened) == ["e1", "e3"])
        #expect(reopened.recovery.corruptRecords == 1)
    }

    @Test func acknowledgedRecordsAreNotReadAgainAndAnEmptyQueueEmptiesTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.url.appendingPathComponent("events.log")
        do {
            let log = try EventLog(directory: dir.url)
            try log.append([Self.event(1), Self.event(2), Self.event(3)])
            try log.acknowledge(2)
        }
        let reopened = try EventLog(directory: dir.url)
        #expect(Self.ids(reopened) == ["e3"])
        try reopened.acknowledge(1)
        #expect(try Data(contentsOf: file).isEmpty)
        #expect(try EventLog(directory: dir.url).pending.isEmpty)
    }

    @Test func anOffsetPastTheEndMeansTheLogWasEmptied() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let log = try EventLog(directory: dir.url)
            try log.append([Self.event(1)])
        }
        // The crash came after the log was emptied and before the offset was reset.
        try FileHandle(forUpdating: dir.url.appendingPathComponent("events.log")).truncate(atOffset: 0)
        try Data("00000000000000000123\n".utf8).write(to: dir.url.appendingPathComponent("events.acked"))
        let reopened = try EventLog(directory: dir.url)
        #expect(reopened.pending.isEmpty)
        try reopened.append([Self.event(2)])
        #expect(Self.ids(try EventLog(directory: dir.url)) == ["e2"])
    }

    @Test func aFullQueueDropsAndCounts() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let client = try AbctlClient(configuration: ClientFixtures.configuration(try unreachableURL(), storage: dir, queueCapacity: 5))
        let events = (0..<8).map { ClientEvent(id: "e\($0)", kind: .purchased, userID: "u1") }
        #expect(try await client.log(Array(events.prefix(3))) == 3)
        #expect(try await client.log(Array(events.suffix(5))) == 2)
        #expect(try await client.logPurchase(.trialStarted, userID: "u1") == false)
        let d = await client.diagnostics()
        #expect(d.queueDepth == 5)
        #expect(d.eventsDroppedQueueFull == 4)
        #expect(d.eventsQueued == 5)
        #expect(d.lastError?.contains("full") == true)
    }
}
