import Events

extension Statement {
    /// Binds one column's value (`EventColumns`): a flag as 0 or 1.
    @inline(__always)
    func bind(_ index: Int32, _ value: StoredValue) throws {
        switch value {
        case .null: try bindNull(index)
        case .integer(let number): try bind(index, number)
        case .real(let number): try bind(index, number)
        case .text(let text): try bind(index, text)
        case .blob(let bytes): try bind(index, blob: bytes)
        case .flag(let flag): try bind(index, Int64(flag ? 1 : 0))
        }
    }

    /// Column `column` of the current row read as `storage`, NULL as `.null`.
    func storedValue(_ column: Int32, as storage: EventColumn.Storage) -> StoredValue {
        if isNull(column) { return .null }
        switch storage {
        case .integer: return .integer(int64(column))
        case .real: return .real(double(column))
        case .text: return .text(text(column))
        case .blob: return .blob(withBlob(column) { Array($0) })
        case .flag: return .flag(int64(column) == 1)
        }
    }

    /// Where each of `columns` is among this statement's result columns, found by name.
    func eventColumnPositions(_ columns: [EventColumn] = EventColumns.all) -> [Int32] {
        var byName: [String: Int32] = [:]
        for column in 0..<columnCount { byName[columnName(column)] = column }
        return columns.map { column in
            guard let position = byName[column.name] else { preconditionFailure("the query selects no column \(column.name)") }
            return position
        }
    }

    /// The current row as an event, each of `columns` read by the position `positions` found for its name.
    func event(at positions: [Int32], _ columns: [EventColumn] = EventColumns.all) -> Event {
        EventColumns.event(columns) { index, column in storedValue(positions[index], as: column.storage) }
    }
}
