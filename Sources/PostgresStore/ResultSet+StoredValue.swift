import Events

extension ResultSet {
    /// Column `column` of `row` read as `storage`, NULL as `.null`.
    func storedValue(_ row: Int, _ column: Int, as storage: EventColumn.Storage) -> StoredValue {
        if isNull(row, column) { return .null }
        switch storage {
        case .integer: return .integer(int64(row, column))
        case .real: return .real(double(row, column))
        case .text: return .text(text(row, column))
        case .blob: return bytes(row, column).map(StoredValue.blob) ?? .null
        case .flag: return .flag(bool(row, column))
        }
    }

    /// Where each of `columns` is among the result's columns, found by name.
    func eventColumnPositions(_ columns: [EventColumn] = EventColumns.all) -> [Int] {
        columns.map { column in
            guard let position = self.column(named: column.name) else { preconditionFailure("the query selects no column \(column.name)") }
            return position
        }
    }

    /// Row `row` as an event, each of `columns` read by the position `positions` found for its name.
    func event(_ row: Int, at positions: [Int], _ columns: [EventColumn] = EventColumns.all) -> Event {
        EventColumns.event(columns) { index, column in storedValue(row, positions[index], as: column.storage) }
    }

    /// Every row as the facts builder reads a stored event, each column found by its name.
    func factsSources() -> [FactsBuilder.Source] {
        let columns = FactsBuilder.Source.columns, positions = eventColumnPositions(columns)
        return (0..<count).map { FactsBuilder.Source(event($0, at: positions, columns)) }
    }
}
