import Assignment
import ExperimentDefinitions
import Foundation

/// An experiment file's history in git: the commits that changed it, newest first, each checked
/// as `abctl validate --against` checks a change: the folder at the commit against the folder at
/// its parent (`ExperimentFiles.validate(paths:against:)`, both read from git into folders of
/// their own), so the console never has a second check.
struct FileHistory: Sendable {
    struct Change: Sendable {
        var commit: String
        var time: Date?
        var author: String
        var subject: String
        /// What `validate --against` the parent says of the file at this commit; nil for a commit
        /// with no parent, or when it could not be checked (`unchecked` says why).
        var diagnostics: [Diagnostic]?
        var unchecked: String?

        /// The errors that move enrolled users (a reshuffle, a removal); a warning's `change` names
        /// what it touched, not users moved.
        private var moves: [Diagnostic.Change] { diagnostics?.filter { $0.severity == .error }.compactMap(\.change) ?? [] }
        /// The largest share of enrolled users the change moves, when an error says one.
        var movedShare: Double? { moves.compactMap(\.share).max() }
        /// An error moves users by a share the files cannot give (targeting, learned weights).
        var movesAnUnknownShare: Bool { moves.contains { $0.share == nil } }
    }

    enum Outcome: Sendable {
        case changes([Change], more: Bool)
        /// No git, or the folder is not in a work tree: one line says which.
        case unavailable(String)
        /// git failed: the line says why (and the server logged it).
        case failed(String)
    }

    /// The commits shown at most; an older one is left out with a line saying so.
    static let maximumCommits = 20
    /// A bound on each git run's time and output: a history is read in the background, and a
    /// hung or huge run must not hold the slot.
    static let limits = GitCommand.Limits(seconds: 20, outputBytes: 16 << 20)

    /// The history of `path` (an experiment file as the loader names it).
    static func read(path: String) -> Outcome {
        let folder = { let f = (path as NSString).deletingLastPathComponent; return f.isEmpty ? "." : f }()
        let name = (path as NSString).lastPathComponent
        do {
            let inside = try GitCommand.run(["rev-parse", "--is-inside-work-tree"], in: folder, limits: limits)
            guard inside.status == 0, String(decoding: inside.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "true" else {
                return .unavailable("The experiments folder is not in a git work tree, so the file has no history here.")
            }
            let log = try GitCommand.run(["log", "-z", "--no-show-signature", "-n", String(maximumCommits + 1),
                                          "--format=%H%x1f%P%x1f%cI%x1f%an%x1f%s", "--", name],
                                         in: folder, limits: limits)
            guard log.status == 0 else { return .failed("git log failed: \(log.errorText)") }
            var changes = log.output.split(separator: 0).compactMap { Self.parse(Array($0)) }
            let more = changes.count > maximumCommits
            changes = Array(changes.prefix(maximumCommits))
            for i in changes.indices { check(&changes[i], name: name, folder: folder) }
            return .changes(changes, more: more)
        } catch .notInstalled {
            return .unavailable("git is not installed on this server, so the file has no history here.")
        } catch {
            return .failed(error.description)
        }
    }

    /// One `git log` record: hash, parents, committer time, author, subject (unit separators between).
    static func parse(_ record: [UInt8]) -> Change? {
        let fields = record.split(separator: 0x1F, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 5 else { return nil }
        let hash = fields[0].trimmingCharacters(in: .whitespacesAndNewlines)
        var change = Change(commit: hash, time: RFC3339.parse(fields[2]), author: fields[3], subject: fields[4])
        if fields[1].isEmpty { change.unchecked = "the first commit: nothing to compare with" }
        return change
    }

    /// `validate --against` the first parent, on the folder as it was at the commit.
    static func check(_ change: inout Change, name: String, folder: String) {
        guard change.unchecked == nil else { return }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("abctl-history-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        do {
            let at = try ReferenceFiles.read(change.commit, for: folder, limits: limits)
            let before = try ReferenceFiles.read(change.commit + "^", for: folder, limits: limits)
            guard at.files[name] != nil else {
                change.unchecked = "the file was removed here"
                return
            }
            try write(at, to: work + "/at")
            try write(before, to: work + "/before")
            let report = try ExperimentFiles.validate(paths: [work + "/at/" + name], against: work + "/before", now: change.time ?? Date())
            change.diagnostics = report.diagnostics.filter { ($0.file as NSString).lastPathComponent == name }
        } catch let error as ReferenceFiles.ReadError {
            change.unchecked = "could not be read from git: \(error.description)"
        } catch {
            change.unchecked = "could not be checked: \(error.localizedDescription)"
        }
    }

    private static func write(_ files: ReferenceFiles, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, bytes) in files.files { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
    }
}
