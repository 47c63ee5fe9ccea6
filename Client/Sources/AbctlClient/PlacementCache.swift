import ExperimentDefinitions
import Foundation

/// The server's last answer for each (user, placement), on disk, so the device keeps showing the
/// same thing when the server cannot be reached and after the app restarts.
///
/// Kept in memory; the file is rewritten (atomically) when an answer changes, and otherwise at
/// most once an hour to move its time forward. An answer older than the lifetime is not used,
/// so an offline device falls back to the placement's bundled default.
struct PlacementCache {
    private struct Key: Hashable {
        var user: String
        var placement: String
    }

    private struct Entry {
        /// The `/v1/assign` answer as the server sent it.
        var answer: JSONValue
        var savedAt: Date
    }

    let file: URL
    private var entries: [Key: Entry] = [:]
    private(set) var loadProblem: String?

    init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            for item in try JSONValue.parse([UInt8](data))["entries"]?.array ?? [] {
                guard let user = item["user_id"]?.string, let placement = item["placement"]?.string else { continue }
                if let answer = item["answer"] {
                    entries[Key(user: user, placement: placement)] = Entry(answer: answer,
                                                                           savedAt: item["saved_at"]?.string.flatMap(RFC3339.parse) ?? .distantPast)
                } else {
                    // Version 1 kept the bare answer with no time: expired.
                    entries[Key(user: user, placement: placement)] = Entry(answer: item, savedAt: .distantPast)
                }
            }
        } catch {
            entries = [:]
            loadProblem = "the placement cache \(file.path) could not be read (\(error)); starting empty"
        }
    }

    /// The answer kept for this user and placement, unless it is older than `lifetime` at `now`.
    func answer(user: String, placement: String, now: Date, lifetime: TimeInterval) -> JSONValue? {
        guard let entry = entries[Key(user: user, placement: placement)], now.timeIntervalSince(entry.savedAt) < lifetime else { return nil }
        return entry.answer
    }

    mutating func save(_ answer: JSONValue, user: String, placement: String, at now: Date) throws {
        let key = Key(user: user, placement: placement)
        let old = entries[key]
        entries[key] = Entry(answer: answer, savedAt: now)
        if let old, old.answer == answer, abs(now.timeIntervalSince(old.savedAt)) < 3600 { return }
        try write()
    }

    /// Copies `from`'s answers to `to` where `to` has none (a log-in), the user id in each answer too.
    mutating func carry(from: String, to: String) throws {
        var changed = false
        for (key, entry) in entries where key.user == from && entries[Key(user: to, placement: key.placement)] == nil {
            var answer = entry.answer
            if case .object(let members) = answer {
                answer = .object(members.map { $0.0 == "user_id" ? ($0.0, .string(to)) : $0 })
            }
            entries[Key(user: to, placement: key.placement)] = Entry(answer: answer, savedAt: entry.savedAt)
            changed = true
        }
        if changed { try write() }
    }

    /// Forgets every answer that names `experiment`, but `keeping`'s (the one just saved): the
    /// server said the experiment is stopped, shipped or under a safeguard stop.
    mutating func expire(experiment: String, keeping: (user: String, placement: String)?) throws {
        let before = entries.count
        entries = entries.filter { key, entry in
            entry.answer["experiment"]?.string != experiment || (key.user == keeping?.user && key.placement == keeping?.placement)
        }
        if entries.count != before { try write() }
    }

    private func write() throws {
        let items = entries.sorted { ($0.key.user, $0.key.placement) < ($1.key.user, $1.key.placement) }.map { key, entry in
            JSONValue.object([
                ("user_id", .string(key.user)), ("placement", .string(key.placement)),
                ("saved_at", .string(RFC3339.format(entry.savedAt))), ("answer", entry.answer),
            ])
        }
        let text = JSONValue.object([("version", .number(2)), ("entries", .array(items))]).serialized()
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
