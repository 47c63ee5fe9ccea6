import CLibPQ
import Events
import Glibc

/// The rows of one statement, in text format, freed when the value goes.
///
/// Not `Sendable`: a result set is used by one thread at a time (`CursorReader` hands a whole
/// batch from the thread that fetched it to the one that reads it).
final class ResultSet {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }

    deinit { PQclear(result) }

    var count: Int { Int(PQntuples(result)) }

    /// The position of the result column named `name`, or nil.
    func column(named name: String) -> Int? {
        let position = PQfnumber(result, "\"\(name)\"")
        return position < 0 ? nil : Int(position)
    }

    /// Rows changed by INSERT, UPDATE or DELETE.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    func text(_ row: Int, _ column: Int) -> String { String(cString: PQgetvalue(result, Int32(row), Int32(column))) }

    func optionalText(_ row: Int, _ column: Int) -> String? { isNull(row, column) ? nil : text(row, column) }

    func int64(_ row: Int, _ column: Int) -> Int64 {
        PQgetvalue(result, Int32(row), Int32(column)).map { strtoll($0, nil, 10) } ?? 0
    }

    func optionalInt64(_ row: Int, _ column: Int) -> Int64? { isNull(row, column) ? nil : int64(row, column) }

    func bool(_ row: Int, _ column: Int) -> Bool { text(row, column) == "t" }

    /// A bytea column in hex output (`\x0a1b…`, PostgreSQL's default), as bytes; nil when NULL.
    func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard !isNull(row, column), let value = PQgetvalue(result, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard length >= 2 else { return [] }
        func nibble(_ c: CChar) -> UInt8 {
            let u = UInt8(bitPattern: c)
            return u <= UInt8(ascii: "9") ? u &- UInt8(ascii: "0") : (u | 0x20) &- UInt8(ascii: "a") &+ 10
        }
        var out: [UInt8] = []
        out.reserveCapacity((length - 2) / 2)
        var i = 2
        while i + 1 < length {
            out.append(nibble(value[i]) << 4 | nibble(value[i + 1]))
            i += 2
        }
        return out
    }

    /// An `attributes` column (NULL when the exposure carried none).
    func attributes(_ row: Int, _ column: Int) -> ExposureAttributes {
        bytes(row, column).map(ExposureAttributes.init(encoded:)) ?? .empty
    }

    /// PostgreSQL (12 and later) prints the shortest text that reads back to the same double.
    func double(_ row: Int, _ column: Int) -> Double { Double(text(row, column)) ?? .nan }

    func optionalDouble(_ row: Int, _ column: Int) -> Double? { isNull(row, column) ? nil : double(row, column) }
}
