/// A line for the log of whoever runs the transport (connections cut, libmicrohttpd's notes).
/// The transport writes nowhere itself; the server turns notes into its JSON log lines.
public struct TransportNote: Sendable {
    public enum Level: Sendable { case warning, error }
    public enum Value: Sendable, Equatable { case string(String), number(Double) }

    public var level: Level
    public var message: String
    public var fields: [String: Value]

    public init(level: Level, _ message: String, _ fields: [String: Value] = [:]) {
        self.level = level
        self.message = message
        self.fields = fields
    }
}
