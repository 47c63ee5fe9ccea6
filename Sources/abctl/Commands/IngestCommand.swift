import CommandLineKit
import Dispatch
import Events
import ExperimentDefinitions
import Foundation
import Synchronization

/// `abctl ingest FILE|- [--db PATH] [--experiments DIR]`: stores NDJSON events.
///
/// Streams the input in fixed-size chunks and hands the store batches of `batchSize` events,
/// keeping at most `batchesInFlight` queued, so memory stays flat however long the file is.
/// Bad lines are reported on stderr as `LINE: field: reason` and skipped; the good lines around
/// them are stored. Exit 0 when every line was stored or a duplicate, 1 when any line was
/// rejected, 3 when the store failed (batches committed before the failure stay committed).
enum IngestCommand {
    static let spec = CommandSpec(
        name: "ingest",
        abstract: "Store NDJSON events (exposures, trials, purchases, cancels, refunds).",
        discussion: """
            Store NDJSON events, one per line, from FILE or standard input ('-'). Prints 'stored N, duplicate N, \
            rejected N'; each rejected line is reported on stderr as 'LINE: field: reason'. Exits 1 when any line \
            was rejected (the others are still stored), 3 when the store fails.
            """,
        arguments: [ArgumentSpec(name: "file", help: "NDJSON events, or '-' for standard input.", arity: .one)],
        options: [
            .db,
            .knownExperiments,
        ],
        settings: [
            .now,
            .commitEvery,
            .cacheMiB,
        ],
        run: run
    )

    static let batchSize = 8192
    static let batchesInFlight = 2
    /// Events per transaction: few large commits, since each commit rewrites every index page
    /// it touched; a crash loses at most the uncommitted part, which a re-run stores.
    /// `ABCTL_INGEST_COMMIT_EVERY` overrides it (tests use small values to crash between commits).
    static let defaultCommitEvery = 500_000

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard args.positionals.count == 1 else {
            throw CLIError.usage(args.positionals.isEmpty ? "missing <file> (use '-' for standard input)" : "expected one <file>, got \(args.positionals.count)",
                                 command: "ingest")
        }
        let dbPath = args[.db]
        let commitEvery = args.setting(.commitEvery).flatMap { Int($0) } ?? defaultCommitEvery
        let catalog = try loadCatalog(args[.knownExperiments])

        let input = args.positionals[0]
        let fd: Int32
        if input == "-" {
            fd = STDIN_FILENO
        } else {
            fd = open(input, O_RDONLY)
            guard fd >= 0 else { throw CLIError.runtime("cannot read '\(input)': \(String(cString: strerror(errno)))") }
        }
        defer { if fd != STDIN_FILENO { close(fd) } }

        let store = try StoreOpener.open(dbPath, .init(cacheMiB: args.setting(.cacheMiB).flatMap { Int($0) }))
        defer { store.close() }

        // A file is history (an export, a fixture, a simulation's output): its times are held to a
        // clock only when ABCTL_NOW names one (docs/Contract.md); the server holds live events to its own.
        var parser = EventParser(catalog: catalog.map { KnownVariants($0.variantKeys) }, currency: catalog?.products.converter,
                                 fees: catalog?.products.stores ?? .standard)
        if let now = FixedClock.now(args) { parser = parser.receiving(at: Timestamp(now)) }
        let tally = Tally()
        let slots = DispatchSemaphore(value: batchesInFlight)
        let inFlight = DispatchGroup()
        let progress = Progress(enabled: isatty(STDERR_FILENO) == 1)
        var rejected = 0
        var ignored = 0
        var batch: [Event] = []
        batch.reserveCapacity(batchSize)
        var errorLines = ""

        func flushErrors() {
            guard !errorLines.isEmpty else { return }
            FileHandle.standardError.write(Data(errorLines.utf8))
            errorLines = ""
        }
        func send() {
            guard !batch.isEmpty else { return }
            slots.wait()
            inFlight.enter()
            store.submitBulk(batch, commitEvery: commitEvery, consumed: { slots.signal() }) { result in
                tally.record(result)
                inFlight.leave()
            }
            batch.removeAll(keepingCapacity: true)
        }

        do {
            try LineReader(fileDescriptor: fd).forEachLine { number, line in
                switch line {
                case .tooLong(let count):
                    rejected += 1
                    errorLines += "\(number): json: line too long (\(count) bytes)\n"
                case .bytes(let bytes):
                    switch parser.parse(bytes: bytes) {
                    case nil: break
                    case .success(let event)?:
                        batch.append(event)
                        if batch.count >= batchSize {
                            send()
                            flushErrors()
                            if tally.failed { throw StopIngest() }
                            progress.update(lines: number, tally: tally, rejected: rejected)
                        }
                    case .failure(let rejection)? where rejection.ignored:
                        ignored += 1
                        errorLines += "\(number): ignored: \(rejection.reason)\n"
                        if let kept = rejection.kept { batch.append(kept) }
                    case .failure(let rejection)?:
                        rejected += 1
                        for problem in rejection.problems { errorLines += "\(number): \(problem.field): \(problem.reason)\n" }
                        if errorLines.utf8.count > 64 * 1024 { flushErrors() }
                    }
                }
            }
            send()
        } catch is StopIngest {
            // The store failed; its error is reported below.
        } catch {
            try? store.flush()
            inFlight.wait()
            flushErrors()
            progress.clear()
            throw CLIError.runtime("cannot read '\(input)': \(error)")
        }
        if !tally.failed {
            do { try store.flush() } catch { tally.record(.failure(error)) }
        }
        inFlight.wait()
        flushErrors()
        progress.clear()
        let totals = tally.totals
        print("stored \(totals.stored), duplicate \(totals.duplicates), rejected \(rejected)" + (ignored > 0 ? ", ignored \(ignored)" : ""))
        if let failure = tally.failure {
            throw CLIError.runtime("event store failed; batches before the failure are stored, re-run to store the rest (duplicates are skipped): \(failure)")
        }
        return rejected > 0 ? .checkFailed : .success
    }

    /// Variant keys per experiment id from the experiment folder.
    ///
    /// TODO(lead): replace with the ExperimentDefinitions model loader once it lands on main; this
    /// reads only `id` and `variants[].key` of each `*.json` file (not `schema.json`/`products.json`).
    /// The variants exposures may name: from `--experiments` (which must be valid), else from
    /// `Experiments/` when that folder exists, else nil (any experiment accepted).
    static func loadCatalog(_ explicit: String?) throws -> ExperimentCatalog? {
        let folder = explicit ?? "Experiments"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            if explicit != nil { throw CLIError.usage("experiments folder '\(folder)' does not exist", command: "ingest") }
            return nil
        }
        return try ExperimentFolder.load(folder)
    }
}

private struct StopIngest: Error {}

/// Results of the store's callbacks, gathered from the writer's queue.
private final class Tally: Sendable {
    private let state = Mutex<(totals: AppendResult, failure: String?)>((AppendResult(), nil))

    func record(_ result: Result<AppendResult, any Error>) {
        state.withLock {
            switch result {
            case .success(let r): $0.totals = $0.totals + r
            case .failure(let e): if $0.failure == nil { $0.failure = String(describing: e) }
            }
        }
    }

    var totals: AppendResult { state.withLock { $0.totals } }
    var failure: String? { state.withLock { $0.failure } }
    var failed: Bool { failure != nil }
}

/// A single progress line on stderr, redrawn at most a few times a second, only on a terminal.
private final class Progress {
    let enabled: Bool
    let start = DispatchTime.now().uptimeNanoseconds
    var last: UInt64 = 0
    var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(lines: Int, tally: Tally, rejected: Int) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - last > 250_000_000 else { return }
        last = now
        let seconds = max(Double(now - start) / 1e9, 0.001)
        let t = tally.totals
        let text = "\r\u{1B}[2Kingest: \(lines) lines, stored \(t.stored), duplicate \(t.duplicates), rejected \(rejected), \(Int(Double(lines) / seconds)) lines/s"
        FileHandle.standardError.write(Data(text.utf8))
        drawn = true
    }

    func clear() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}

private extension OptionKeys {
    /// Unlike the shared `--experiments`, no default: without a folder, ingest checks no exposure.
    static let knownExperiments = OptionKey<String?>("--experiments", value: "dir",
        help: "Experiment folder; exposures must name one of its experiments and variants (default: Experiments/ when present).",
        environment: "ABCTL_EXPERIMENTS")
}

private extension SettingSpec {
    static let commitEvery = SettingSpec("ABCTL_INGEST_COMMIT_EVERY", .integer(minimum: 1), help: "Events per committed batch (default 500000).")
    static let cacheMiB = SettingSpec("ABCTL_CACHE_MIB", .integer(minimum: 1), help: "SQLite page cache in MiB while ingesting.")
}
