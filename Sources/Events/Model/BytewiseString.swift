/// A string compared and hashed by its UTF-8 bytes, as the stores' keys compare text (SQLite's
/// BINARY collation, PostgreSQL's "C"): "é" as one code point and "e" with a combining accent
/// are two ids here, where `String`'s `==` takes canonically equivalent strings for one.
public struct BytewiseString: Hashable, Sendable {
    public let value: String

    public init(_ value: String) { self.value = value }

    public static func == (a: BytewiseString, b: BytewiseString) -> Bool { a.value.utf8.elementsEqual(b.value.utf8) }

    public func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
    }
}
