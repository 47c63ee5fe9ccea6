import ExperimentDefinitions
import Foundation

/// The one way to read experiment files: `ExperimentLoader` with every check, GrowthBook's condition
/// linter included (it lives here because conditions are compiled here).
///
/// `abctl validate`, `serve` and its reload, `report`, `assign`, `simulate`, `demo`, `ingest`,
/// `copy check` and `export` all read through it, so a folder `validate` rejects is rejected by all of them.
public enum ExperimentFiles {
    /// Checks files and folders, reporting every problem.
    /// `now`: the time against which a running experiment's `end` is checked (a warning once it has passed).
    public static func validate(paths: [String], now: Date = Date()) -> ExperimentLoader.Report {
        ExperimentLoader.validate(paths: paths, now: now, conditionLinter: linter)
    }

    /// `validate --against REF`: the checks of `validate`, with a clash between a changed
    /// and an unchanged file reported at the changed one, and what changed since REF in the
    /// experiments REF was running. REF is a folder or a git revision; each folder named (or
    /// holding a named file) is compared with its own version at REF.
    /// - Throws: when REF is neither a folder nor a revision of the folder's repository.
    public static func validate(paths: [String], against ref: String, now: Date = Date()) throws(ReferenceFiles.ReadError) -> ExperimentLoader.Report {
        var folders: [(path: String, whole: Bool, ref: ReferenceFiles)] = []
        var changed: Set<String> = []
        for path in paths {
            var isDirectory: ObjCBool = false
            let whole = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            let folder = whole ? path : { let f = (path as NSString).deletingLastPathComponent; return f.isEmpty ? "." : f }()
            guard !folders.contains(where: { $0.path == folder }) else { continue }
            let files = try ReferenceFiles.read(ref, for: folder)
            folders.append((folder, whole, files))
            for name in ExperimentLoader.experimentFiles(inFolder: folder) {
                let bytes = FileManager.default.contents(atPath: folder + "/" + name).map { [UInt8]($0) }
                guard bytes != files.files[name] else { continue }
                // Named as the loader names it: from the folder when one was given, else as the file was given.
                changed.insert(whole ? ExperimentLoader.path(of: name, inFolder: folder) : paths.first { ($0 as NSString).lastPathComponent == name } ?? name)
            }
        }
        var report = ExperimentLoader.validate(paths: paths, now: now, changed: changed, conditionLinter: linter)
        for folder in folders {
            let mine = report.experimentFiles.filter { f in
                let dir = (f.file as NSString).deletingLastPathComponent
                return (dir.isEmpty ? "." : dir) == (folder.path.hasSuffix("/") ? String(folder.path.dropLast()) : folder.path)
            }
            let checker = RunningChanges(ref: folder.ref, folder: folder.path.hasSuffix("/") ? String(folder.path.dropLast()) : folder.path, now: now,
                                         share: { AnswerChange.share(from: $0, to: $1, at: $2) }, conditionLinter: linter)
            for d in checker.check(mine, wholeFolder: folder.whole) {
                // One note per file for what was skipped: a file that could not be read
                // already has the loader's note, so the checks of --against it skips join that line.
                if d.code == "checks_skipped", let i = report.diagnostics.firstIndex(where: { $0.code == d.code && $0.file == d.file }),
                   let colon = d.message.range(of: ": ") {
                    report.diagnostics[i].message += "; " + d.message[colon.upperBound...]
                } else {
                    report.diagnostics.append(d)
                }
            }
        }
        if report.errorCount > 0 { report.catalog = nil }
        return report
    }

    /// Loads a folder for use; throws the diagnostics when any file has an error.
    public static func load(directory: String) throws(ExperimentLoader.LoadError) -> ExperimentCatalog {
        try ExperimentLoader.load(directory: directory, conditionLinter: linter)
    }

    static let linter: ExperimentLoader.ConditionLinter = { Condition.problems(in: $0) }
}
