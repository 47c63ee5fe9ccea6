/// What an append did: events newly stored, and events already present (the same `user_id` and `event_id`).
public struct AppendResult: Sendable, Equatable {
    public var stored: Int
    public var duplicates: Int

    public init(stored: Int = 0, duplicates: Int = 0) {
        self.stored = stored
        self.duplicates = duplicates
    }

    public static func + (a: AppendResult, b: AppendResult) -> AppendResult {
        AppendResult(stored: a.stored + b.stored, duplicates: a.duplicates + b.duplicates)
    }
}
