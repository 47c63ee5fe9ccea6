import Foundation

/// The id the client asks and logs under (one person, many ids: docs/People.md), kept on disk: an
/// anonymous id made the first time (a lowercase UUID), the known id after `logIn`, a new
/// anonymous id after `logOut`. The file is rewritten (atomically) on each change.
struct CurrentUser {
    let file: URL
    private(set) var id: UserID
    /// Whether `id` came from `logIn` (a known id) rather than being made here.
    private(set) var isKnown: Bool
    private(set) var loadProblem: String?

    init(file: URL) throws {
        self.file = file
        if let data = try? Data(contentsOf: file) {
            do {
                let root = try JSONValue.parse([UInt8](data))
                if let user = root["user_id"]?.string, !user.isEmpty {
                    id = UserID(user)
                    isKnown = root["known"]?.bool ?? false
                    return
                }
                loadProblem = "the current user \(file.path) names no user_id; a new anonymous id was made"
            } catch {
                loadProblem = "the current user \(file.path) could not be read (\(error)); a new anonymous id was made"
            }
        }
        id = UserID(UUID().uuidString.lowercased())
        isKnown = false
        try write()
    }

    /// From now on the client speaks as `id`.
    mutating func become(_ id: UserID, known: Bool) throws {
        let old = (self.id, isKnown)
        self.id = id
        isKnown = known
        do { try write() } catch {
            (self.id, isKnown) = old
            throw error
        }
    }

    private func write() throws {
        let text = JSONValue.object([("version", .number(1)), ("user_id", .string(id.text)), ("known", .bool(isKnown))]).serialized()
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}

/// Why `logIn` could not link the anonymous id: the event queue is full (nothing changed; try
/// again once it has drained).
public enum LogInError: Error, Sendable {
    case queueFull
}
