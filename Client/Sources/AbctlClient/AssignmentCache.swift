import ExperimentDefinitions
import Foundation

/// The last answer the server gave each (user, experiment), on disk, so the device stays sticky
/// when the server cannot be reached and after the app restarts.
///
/// Read once when the client starts and kept in memory; the file is rewritten (atomically) when
/// an answer changes, and otherwise at most once an hour to move its time forward, so a paywall
/// answered from the cache touches no disk. An answer older than the lifetime is not used
/// (a device offline for a week shows the bundled default, not an arm stopped since).
struct AssignmentCache {
    struct Entry: Sendable {
        /// The user's arm; nil when the answer shows a paywall outside any arm (a shipped
        /// experiment's winner, the control's paywall under a safeguard stop), which logs no exposure.
        var variant: String?
        var paywall: ResolvedPaywall
        /// The `paywall` object as the server sent it: written back as it came.
        var paywallJSON: JSONValue
        /// The server's reason (`assigned`, `sticky`, `shipped`, …).
        var reason: String
        /// When the server last gave this answer.
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
                guard let user = item["user_id"]?.string, let experiment = item["experiment"]?.string, let json = item["paywall"] else { continue }
                // No time: a file from before answers expired, whose entries count as expired.
                let savedAt = item["saved_at"]?.string.flatMap(RFC3339.parse) ?? .distantPast
                entries[Key(user: UserID(user), experiment: experiment)] = Entry(
                    variant: item["variant"]?.string, paywall: try ResolvedPaywall(reading: json), paywallJSON: json,
                    reason: item["reason"]?.string ?? "assigned", savedAt: savedAt)
            }
        } catch {
            entries = [:]
            loadProblem = "the assignment cache \(file.path) could not be read (\(error)); starting empty"
        }
    }

    /// The answer kept for this user and experiment, unless it is older than `lifetime` at `now`.
    func entry(user: UserID, experiment: String, now: Date, lifetime: TimeInterval) -> Entry? {
        guard let entry = entries[Key(user: user, experiment: experiment)], now.timeIntervalSince(entry.savedAt) < lifetime else { return nil }
        return entry
    }

    var count: Int { entries.count }

    /// Keeps the server's latest answer, dated `now`; writes the file when the answer changed, or
    /// when the time on disk is an hour old.
    mutating func save(user: UserID, experiment: String, variant: String?, paywall: ResolvedPaywall, json: JSONValue, reason: String,
                       at now: Date) throws {
        let key = Key(user: user, experiment: experiment)
        let old = entries[key]
        entries[key] = Entry(variant: variant, paywall: paywall, paywallJSON: json, reason: reason, savedAt: now)
        if let old, old.variant == variant, old.paywallJSON == json, old.reason == reason,
           abs(now.timeIntervalSince(old.savedAt)) < 3600 {
            // Only the time moved, and by less than an hour: memory has the new time, the disk keeps
            // the older one (after a restart the answer expires up to an hour early, never late).
            return
        }
        try write()
    }

    /// Copies `from`'s answers to `to` where `to` has none (a log-in: the server answers
    /// the known id with the person's arms, which are the anonymous id's).
    mutating func carry(from: UserID, to: UserID) throws {
        var changed = false
        for (key, entry) in entries where key.user == from && entries[Key(user: to, experiment: key.experiment)] == nil {
            entries[Key(user: to, experiment: key.experiment)] = entry
            changed = true
        }
        if changed { try write() }
    }

    /// Forgets an answer the server no longer gives (the user left the experiment, or it ended).
    mutating func remove(user: UserID, experiment: String) throws {
        guard entries.removeValue(forKey: Key(user: user, experiment: experiment)) != nil else { return }
        try write()
    }

    /// Forgets every user's answer for `experiment` but `keeping`'s: the server said the experiment
    /// is stopped, shipped or under a safeguard stop, so no arm kept from before may be shown again.
    mutating func expire(experiment: String, keeping: UserID?) throws {
        let before = entries.count
        entries = entries.filter { $0.key.experiment != experiment || $0.key.user == keeping }
        if entries.count != before { try write() }
    }

    private func write() throws {
        let items: [JSONValue] = entries.sorted { ($0.key.user, $0.key.experiment) < ($1.key.user, $1.key.experiment) }.map { key, entry in
            .object([
                ("user_id", .string(key.user.text)), ("experiment", .string(key.experiment)),
                ("variant", entry.variant.map(JSONValue.string) ?? .null), ("reason", .string(entry.reason)),
                ("saved_at", .string(RFC3339.format(entry.savedAt))), ("paywall", entry.paywallJSON),
            ])
        }
        let text = JSONValue.object([("version", .number(1)), ("entries", .array(items))]).serialized()
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
