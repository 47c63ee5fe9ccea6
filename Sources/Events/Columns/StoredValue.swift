/// One value of a stored row, as a store writes and reads it: the few kinds both stores have.
public enum StoredValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    /// A yes or no: SQLite keeps 0 or 1, PostgreSQL a boolean.
    case flag(Bool)

    /// The text, or nil for any other kind.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var real: Double? {
        if case .real(let value) = self { return value }
        return nil
    }

    public var blob: [UInt8]? {
        if case .blob(let bytes) = self { return bytes }
        return nil
    }

    public var flag: Bool? {
        if case .flag(let value) = self { return value }
        return nil
    }
}
