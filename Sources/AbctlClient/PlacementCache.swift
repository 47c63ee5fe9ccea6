import Foundation

/// The server's last answer for each (user, placement), on disk, so the device keeps showing the
/// same thing when the server cannot be reached and after the app restarts.
///
/// Kept in memory; the file is rewritten (atomically) only when an answer changes.
struct PlacementCache {
    private struct Key: Hashable {
        var user: String
        var placement: String
    }

    let file: URL
    /// The `/v1/assign` answer as the server sent it.
    private var entries: [Key: JSONValue] = [:]
    private(set) var loadProblem: String?

    init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            for item in try JSONValue.parse([UInt8](data))["entries"]?.array ?? [] {
                guard let user = item["user_id"]?.string, let placement = item["placement"]?.string else { continue }
                entries[Key(user: user, placement: placement)] = item
            }
        } catch {
            entries = [:]
            loadProblem = "the placement cache \(file.path) could not be read (\(error)); starting empty"
        }
    }

    func answer(user: String, placement: String) -> JSONValue? { entries[Key(user: user, placement: placement)] }

    mutating func save(_ answer: JSONValue, user: String, placement: String) throws {
        let key = Key(user: user, placement: placement)
        if entries[key] == answer { return }
        entries[key] = answer
        let items = entries.sorted { ($0.key.user, $0.key.placement) < ($1.key.user, $1.key.placement) }.map(\.value)
        let text = JSONValue.object([("version", .number(1)), ("entries", .array(items))]).serialized()
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
