// facts-walk-bench: the floor under a plain report's walk of facts (see bench/report.sh).
//
// Usage: facts-walk-bench --db PATH [--experiment ID] [--until RFC3339] [--mode calls|rows|batches] [--mmap BYTES]
//
//   calls    the report's statement (the same select list, the same WHERE) and, per row, the same
//            C calls per column a store's batch fill makes, their values summed and nothing else:
//            what reading those columns through SQLite's C API costs in any program;
//   rows     the store's walk into `UserFacts` rows (`forEachFact`), the rows left unused;
//   batches  the store's walk into `FactBatch`es (`forEachFactBatch`), the batches left unused.
// Prints the rows read and a checksum; time it from outside (`/usr/bin/time`).
import CSQLite
import Events
import ExperimentDefinitions
import Foundation
import SQLiteStore

var db = "", experiment = "chorus-paywall-copy", until = "2026-12-31T00:00:00Z", mode = "calls", mmap: Int64?
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--db": db = args.popFirst() ?? ""
    case "--experiment": experiment = args.popFirst() ?? experiment
    case "--until": until = args.popFirst() ?? until
    case "--mode": mode = args.popFirst() ?? mode
    case "--mmap": mmap = Int64(args.popFirst() ?? "")
    default: FileHandle.standardError.write(Data("facts-walk-bench: unknown argument \(a)\n".utf8)); exit(2)
    }
}
guard !db.isEmpty, let untilDate = ISO8601DateFormatter().date(from: until) else {
    FileHandle.standardError.write(Data("facts-walk-bench: --db PATH is required, --until an RFC 3339 moment\n".utf8)); exit(2)
}
let untilMicros = Int64(untilDate.timeIntervalSince1970) * 1_000_000
// A plain report reads every part but the attributes.
let fields: FactFields = .revenueEntries

switch mode {
case "calls":
    var handle: OpaquePointer?
    guard sqlite3_open_v2(db, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else { exit(1) }
    if let mmap { sqlite3_exec(handle, "PRAGMA mmap_size = \(mmap)", nil, nil, nil) }
    let sql = SQLiteEventStore.factsWalk(fields, bounded: true)
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let s = statement else {
        FileHandle.standardError.write(Data("facts-walk-bench: \(String(cString: sqlite3_errmsg(handle)))\n".utf8)); exit(1)
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    sqlite3_bind_text(s, 1, experiment, -1, transient)
    sqlite3_bind_int64(s, 2, Int64.min)
    sqlite3_bind_int64(s, 3, untilMicros)
    // The columns a batch fill reads, by how it reads them: a number through the column's value (its
    // type, then the number), a real and the first exposure and the crossover flag by one call, text
    // and blobs by the value's bytes and their count.
    enum Read { case number, optionalNumber, real, text, blob }
    let plain = ["first_exposure_ts", "crossed_over"]
    let reads: [(Int32, Read)] = FactColumns.all.enumerated().compactMap { position, column in
        guard column.name != "experiment", column.part.map({ fields.contains($0) }) ?? true else { return nil }
        switch column.storage {
        case .integer, .flag: return (Int32(position), plain.contains(column.name) ? .number : .optionalNumber)
        case .real: return (Int32(position), .real)
        case .text: return (Int32(position), .text)
        case .blob: return (Int32(position), .blob)
        }
    }
    var rows = 0, sum: Int64 = 0, real = 0.0
    while sqlite3_step(s) == SQLITE_ROW {
        rows += 1
        for (c, read) in reads {
            switch read {
            case .number:
                sum &+= sqlite3_column_int64(s, c)
            case .optionalNumber:
                let value = sqlite3_column_value(s, c)
                if sqlite3_value_type(value) != SQLITE_NULL { sum &+= sqlite3_value_int64(value) }
            case .real:
                real += sqlite3_column_double(s, c)
            case .text:
                let value = sqlite3_column_value(s, c)
                if sqlite3_value_text(value) != nil { sum &+= Int64(sqlite3_value_bytes(value)) }
            case .blob:
                let value = sqlite3_column_value(s, c)
                if sqlite3_value_blob(value) != nil { sum &+= Int64(sqlite3_value_bytes(value)) }
            }
        }
    }
    sqlite3_finalize(s)
    sqlite3_close_v2(handle)
    print("calls: \(rows) rows, checksum \(sum) \(real)")
case "rows":
    let store = try SQLiteEventStore(path: db)
    var rows = 0
    try store.forEachFact(experiment: experiment, since: nil, until: Timestamp(microseconds: untilMicros), fields: fields) { _ in rows += 1 }
    print("rows: \(rows) rows")
case "batches":
    let store = try SQLiteEventStore(path: db)
    var rows = 0
    try store.forEachFactBatch(experiment: experiment, since: nil, until: Timestamp(microseconds: untilMicros), fields: fields) { rows += $0.count }
    print("batches: \(rows) rows")
default:
    FileHandle.standardError.write(Data("facts-walk-bench: --mode is calls, rows or batches\n".utf8)); exit(2)
}
