import Foundation
import Testing
import Events
import TestSupport

private func lines(of content: [UInt8], chunkSize: Int, maxLineBytes: Int) throws -> [(Int, String?)] {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.path("input.ndjson")
    try Data(content).write(to: URL(fileURLWithPath: path))
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var out: [(Int, String?)] = []
    try LineReader(fileDescriptor: fd, chunkSize: chunkSize, maxLineBytes: maxLineBytes).forEachLine { number, line in
        switch line {
        case .bytes(let b): out.append((number, String(decoding: b, as: UTF8.self)))
        case .tooLong(let n): out.append((number, n > maxLineBytes ? nil : "?"))
        }
    }
    return out
}

@Test(arguments: [1, 3, 7, 64, 1 << 20])
func splitsLinesAcrossChunkBoundaries(chunkSize: Int) throws {
    let text = "first\r\nsecond line\n\nfourth, a little longer than the rest\nlast without newline"
    let result = try lines(of: Array(text.utf8), chunkSize: chunkSize, maxLineBytes: 64)
    #expect(result.map(\.0) == [1, 2, 3, 4, 5])
    #expect(result.map(\.1) == ["first", "second line", "", "fourth, a little longer than the rest", "last without newline"])
}

@Test(arguments: [4, 16, 1000])
func skipsOverlongLinesAndKeepsCounting(chunkSize: Int) throws {
    let long = String(repeating: "x", count: 500)
    let text = "short\n\(long)\nafter\n\(long)"
    let result = try lines(of: Array(text.utf8), chunkSize: chunkSize, maxLineBytes: 40)
    #expect(result.map(\.0) == [1, 2, 3, 4])
    #expect(result[0].1 == "short")
    #expect(result[1].1 == nil)      // reported as too long
    #expect(result[2].1 == "after")
    #expect(result[3].1 == nil)
}

@Test func emptyInputHasNoLines() throws {
    #expect(try lines(of: [], chunkSize: 8, maxLineBytes: 8).isEmpty)
    #expect(try lines(of: Array("\n".utf8), chunkSize: 8, maxLineBytes: 8).map(\.1) == [""])
}
