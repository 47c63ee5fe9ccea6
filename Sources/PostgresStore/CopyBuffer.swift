import Events
import ExperimentDefinitions

/// Rows in COPY's text format: tab-separated columns, `\N` for NULL, and backslash, tab,
/// newline and carriage return escaped.
struct CopyBuffer {
    private(set) var bytes: [UInt8] = []

    init(reserve: Int = 0) { bytes.reserveCapacity(reserve) }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// A facts row (`EventWriteTransaction.copyFacts`, `FactColumns`).
    mutating func add(_ f: UserFacts) { add(f, columns: FactColumns.readers) }

    /// A row of one value per column of `readers`, each read from `row` in place (a row passed on
    /// to each reader was copied whole, every string retained and released).
    mutating func add<Row>(_ row: Row, columns readers: [@Sendable (UnsafePointer<Row>) -> StoredValue]) {
        withUnsafePointer(to: row) { row in
            for read in readers { add(read(row)) }
        }
        endRow()
    }

    mutating func add(_ text: String?) {
        separate()
        guard let text else {
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "N"))
            return
        }
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\\"): bytes.append(b); bytes.append(b)
            case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            default: bytes.append(b)
            }
        }
    }

    mutating func add(_ value: Int64?) { add(value.map { String($0) }) }

    mutating func add(_ value: Int) { add(String(value)) }

    mutating func add(_ id: some BytewiseText) { add(id.text) }

    /// Swift prints the shortest text that reads back to the same double, as PostgreSQL does.
    mutating func add(_ value: Double?) { add(value.map { "\($0)" }) }

    mutating func add(_ value: Bool) { add(value ? "t" : "f") }

    /// A bytea value in hex (`\\x…` once COPY's own escaping is applied), or NULL.
    mutating func add(bytes: [UInt8]?) {
        guard let bytes else { return add(nil as String?) }
        separate()
        let digits = Array("0123456789abcdef".utf8)
        self.bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
        for b in bytes {
            self.bytes.append(digits[Int(b >> 4)])
            self.bytes.append(digits[Int(b & 15)])
        }
    }

    /// An event as a row of the events table (`EventWriteTransaction.columns`, `EventColumns`).
    mutating func add(_ e: Event) { add(e, columns: EventColumns.readers) }

    /// One column's value: a flag as `t` or `f`.
    mutating func add(_ value: StoredValue) {
        switch value {
        case .null: add(nil as String?)
        case .integer(let number): add(number)
        case .real(let number): add(number)
        case .text(let text): add(text)
        case .blob(let bytes): add(bytes: bytes)
        case .flag(let flag): add(flag)
        }
    }

    mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
        rowStarted = false
    }

    private var rowStarted = false

    private mutating func separate() {
        if rowStarted { bytes.append(UInt8(ascii: "\t")) }
        rowStarted = true
    }
}

/// A `text[]` literal for a parameter: `{"a","b"}` with quotes and backslashes escaped.
func arrayLiteral<S: Sequence<String>>(_ values: S) -> String {
    var out = "{"
    var first = true
    for value in values {
        if !first { out += "," }
        first = false
        out += "\""
        for c in value.unicodeScalars {
            if c == "\"" || c == "\\" { out += "\\" }
            out.unicodeScalars.append(c)
        }
        out += "\""
    }
    return out + "}"
}
