import Foundation

/// The last assignment the server gave each (user, experiment), on disk, so the device stays
/// sticky when the server cannot be reached and after the app restarts.
///
/// Read once when the client starts and kept in memory; the file is rewritten (atomically) only
/// when an assignment changes, so a paywall answered from the cache touches no disk.
struct AssignmentCache {
    struct Entry: Sendable {
        var variant: String
        var paywall: ResolvedPaywall
        /// The `paywall` object as the server sent it: written back as it came.
        var paywallJSON: JSONValue
        var savedAt: Date
    }

    private struct Key: Hashable {
        var user: UserID
        var experiment: String
    }

    let file: URL
    private var entries: [Key: Entry] = [:]
    /// Why the file could not be read when the client started (the cache then starts empty).
    private(set) var loadProblem: String?

    init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            let root = try JSONValue.parse([UInt8](data))
            for item in root["entries"]?.array ?? [] {
                guard let user = item["user_id"]?.string, let experiment = item["experiment"]?.string,
                      let variant = item["variant"]?.string, let json = item["paywall"] else { continue }
                let savedAt = item["saved_at"]?.string.flatMap(RFC3339.parse) ?? Date(timeIntervalSince1970: 0)
                entries[Key(user: UserID(user), experiment: experiment)] = Entry(variant: variant, paywall: try ResolvedPaywall(reading: json),
                                                                        paywallJSON: json, savedAt: savedAt)
            }
        } catch {
            entries = [:]
            loadProblem = "the assignment cache \(file.path) could not be read (\(error)); starting empty"
        }
    }

    func entry(user: UserID, experiment: String) -> Entry? {
        entries[Key(user: user, experiment: experiment)]
    }

    var count: Int { entries.count }

    /// Keeps the server's latest answer; writes the file only when the assignment changed.
    mutating func save(user: UserID, experiment: String, variant: String, paywall: ResolvedPaywall, json: JSONValue, at now: Date) throws {
        let key = Key(user: user, experiment: experiment)
        if let old = entries[key], old.variant == variant, old.paywallJSON == json { return }
        entries[key] = Entry(variant: variant, paywall: paywall, paywallJSON: json, savedAt: now)
        try write()
    }

    /// Forgets an assignment the server no longer gives (the user left the experiment, or it ended).
    mutating func remove(user: UserID, experiment: String) throws {
        guard entries.removeValue(forKey: Key(user: user, experiment: experiment)) != nil else { return }
        try write()
    }

    private func write() throws {
        let items: [JSONValue] = entries.sorted { ($0.key.user, $0.key.experiment) < ($1.key.user, $1.key.experiment) }.map { key, entry in
            .object([
                ("user_id", .string(key.user.text)), ("experiment", .string(key.experiment)), ("variant", .string(entry.variant)),
                ("saved_at", .string(RFC3339.format(entry.savedAt))), ("paywall", entry.paywallJSON),
            ])
        }
        let text = JSONValue.object([("version", .number(1)), ("entries", .array(items))]).serialized()
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
