import Foundation

/// Reads experiment files and folders, checks each file and the folder as a whole, and builds a catalog.
public enum ExperimentLoader {
    /// The outcome of validating some paths.
    public struct Report: Sendable {
        /// Every file that was read, in order.
        public var files: [String]
        public var diagnostics: [Diagnostic]
        /// The experiments and products, when there are no errors.
        public var catalog: ExperimentCatalog?
        /// Each experiment file read, decoded (what `validate --against` compares with REF).
        public var experimentFiles: [ExperimentFile] = []

        public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
        public var warningCount: Int { diagnostics.filter { $0.severity == .warning }.count }
    }

    /// One experiment file as read: its tree (nil when it is not JSON), its model (nil when it has
    /// errors) and the outline the folder checks use.
    public struct ExperimentFile: Sendable {
        public var file: String
        public var root: JSONNode?
        public var experiment: Experiment?
        /// The model decoded with defaults in place of what was refused, errors or not (what the
        /// missing-winner hint reports on); nil when the file is not a JSON object.
        public var draft: Experiment?
        var outline: ExperimentDecoder.Outline?
        /// Why the file could not be read, when it could not ("not valid JSON").
        var unreadable: String?
    }

    /// Thrown by `load` when the folder has errors.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var diagnostics: [Diagnostic]
        /// The error count and the first errors, each in `abctl validate`'s `file:line:column: error: message` form.
        public var description: String {
            let errors = diagnostics.filter { $0.severity == .error }.sorted { ($0.file, $0.position) < ($1.file, $1.position) }
            let notes = diagnostics.filter { $0.severity == .note }
            let first = (errors.prefix(3) + notes.prefix(1)).map(\.line).joined(separator: "\n")
            return "experiments are invalid (\(errors.count) \(errors.count == 1 ? "error" : "errors"); run 'abctl validate'):\n\(first)"
        }
    }

    /// Problems in a condition, as messages naming their path; supplied by the Assignment layer, which compiles conditions.
    /// It is a required argument so that no caller loads files with fewer checks than `abctl validate`:
    /// commands call `ExperimentFiles` in Assignment, which supplies it.
    public typealias ConditionLinter = @Sendable (JSONValue) -> [String]

    /// Files the loader skips: they sit beside experiments but are not experiments.
    static let reservedNames: Set<String> = ["schema.json", "products.json", placementsName]
    static let placementsName = "placements.json"

    /// Loads a folder for use: every experiment must be valid.
    public static func load(directory: String, now: Date = Date(), conditionLinter: @escaping ConditionLinter) throws(LoadError) -> ExperimentCatalog {
        let report = validate(paths: [directory], now: now, conditionLinter: conditionLinter)
        guard let catalog = report.catalog else { throw LoadError(diagnostics: report.diagnostics) }
        return catalog
    }

    /// Validates files and folders (a folder means every `*.json` in it but `schema.json` and
    /// `products.json`, with `placements.json` checked against the folder's experiments).
    /// A file named on its own is also checked against the other experiment files of its folder
    /// (duplicate ids, namespace overlaps), as CI sees one changed file; their own problems are not reported.
    /// `now` is the time against which a running experiment's `end` is checked.
    /// `changed`: with `validate --against`, the experiment files that differ from REF; a problem
    /// between a changed and an unchanged file is reported at the changed one.
    public static func validate(paths: [String], now: Date = Date(), changed: Set<String>? = nil,
                                conditionLinter: @escaping ConditionLinter) -> Report {
        var files: [String] = []
        var diagnostics: [Diagnostic] = []
        var productsByFolder: [String: Products?] = [:]
        var experimentFiles: [String] = []
        var placementFiles: [String] = []
        let fm = FileManager.default

        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                diagnostics.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), code: "not_found", message: "no such file or folder", hint: "check the path"))
                continue
            }
            if isDirectory.boolValue {
                let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
                let names = Self.experimentFiles(inFolder: path)
                experimentFiles += names.map { folder == "." ? $0 : "\(folder)/\($0)" }
                if fm.fileExists(atPath: folder + "/" + placementsName) { placementFiles.append(folder == "." ? placementsName : "\(folder)/\(placementsName)") }
                if names.isEmpty {
                    // An error, not a warning: `serve` refuses such a folder, so CI pointed at the wrong one must not pass.
                    diagnostics.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), code: "no_experiments", message: "no experiment files in this folder",
                                                  hint: "point at the folder holding the experiment files (*.json beside products.json)"))
                }
            } else if (path as NSString).lastPathComponent == "products.json" {
                let folder = (path as NSString).deletingLastPathComponent
                productsByFolder[folder.isEmpty ? "." : folder] = loadProducts(folder: folder.isEmpty ? "." : folder, into: &diagnostics, files: &files)
            } else if (path as NSString).lastPathComponent == placementsName {
                placementFiles.append(path)
            } else {
                experimentFiles.append(path)
            }
        }

        var experiments: [Experiment] = []
        var outlines: [(file: String, outline: ExperimentDecoder.Outline)] = []
        var decodedFiles: [ExperimentFile] = []
        for file in experimentFiles {
            let folderRaw = (file as NSString).deletingLastPathComponent
            let folder = folderRaw.isEmpty ? "." : folderRaw
            if productsByFolder[folder] == nil {
                productsByFolder[folder] = loadProducts(folder: folder, into: &diagnostics, files: &files)
            }
            files.append(file)
            let sink = DiagnosticSink(file: file)
            guard let root = parse(file: file, sink: sink) else {
                diagnostics += sink.diagnostics
                decodedFiles.append(ExperimentFile(file: file, root: nil, experiment: nil, draft: nil, outline: nil, unreadable: sink.diagnostics.first?.code == "unreadable" ? "cannot be read" : "is not valid JSON"))
                continue
            }
            var decoder = ExperimentDecoder(sink: sink, products: productsByFolder[folder] ?? nil, conditionLinter: conditionLinter)
            decoder.now = now
            let (experiment, outline) = decoder.decode(root)
            diagnostics += sink.diagnostics
            outlines.append((file, outline))
            let valid = experiment != nil && !sink.hasErrors
            if let experiment, valid { experiments.append(experiment) }
            decodedFiles.append(ExperimentFile(file: file, root: root, experiment: valid ? experiment : nil, draft: experiment, outline: outline,
                                               unreadable: outline.id == nil ? (outline.isObject ? "has no readable 'id'" : "is not a JSON object") : nil))
        }
        let context = siblingOutlines(of: experimentFiles, products: productsByFolder, conditionLinter: conditionLinter)
        diagnostics += folderChecks(outlines, context: context, changed: changed)
        // Experiment files whose id could not be read: every check that looks an experiment up by id is skipped for them.
        let unreadable = decodedFiles.filter { $0.unreadable != nil }
        var skippedPlacementNames: [String] = []

        var placements: [Placement] = []
        for file in placementFiles {
            let folder = folderOf(file)
            if productsByFolder[folder] == nil {
                productsByFolder[folder] = loadProducts(folder: folder, into: &diagnostics, files: &files)
            }
            files.append(file)
            // The experiments beside the file: from this run when its folder was read, else read for their ids.
            var kinds: [String: Experiment.Kind] = [:]
            let decoded = outlines.filter { folderOf($0.file) == folder }
            if decoded.isEmpty {
                kinds = siblingExperimentKinds(folder: folder)
            } else {
                for (_, o) in decoded { if let id = o.id { kinds[id] = o.kind } }
            }
            let sink = DiagnosticSink(file: file)
            if let root = parse(file: file, sink: sink) {
                let unreadableHere = unreadable.contains { folderOf($0.file) == folder }
                var decoder = PlacementsDecoder(sink: sink, products: productsByFolder[folder] ?? nil, experiments: kinds, conditionLinter: conditionLinter)
                decoder.someExperimentsUnreadable = unreadableHere
                let decoded = decoder.decode(root)
                skippedPlacementNames += decoder.skippedNames.map { "'\($0.experiment)' (\(($0.file as NSString).lastPathComponent), audience \($0.audience))" }
                if placements.isEmpty { placements = decoded }
            }
            diagnostics += sink.diagnostics
        }
        diagnostics += skippedChecksNotes(unreadable: unreadable, experimentCount: decodedFiles.count + context.count,
                                          placementNames: skippedPlacementNames)
        diagnostics += productsNotes(productsByFolder: productsByFolder, experimentFiles: experimentFiles, placementFiles: placementFiles, diagnostics: diagnostics)

        let hasErrors = diagnostics.contains { $0.severity == .error }
        let products = productsByFolder.values.compactMap { $0 }.first
        let catalog = hasErrors ? nil : products.map { ExperimentCatalog(experiments: experiments, products: $0, placements: placements) }
        return Report(files: files, diagnostics: diagnostics, catalog: catalog, experimentFiles: decodedFiles)
    }

    /// One note per experiment file that could not be read, naming the checks skipped because of it,
    /// instead of one false problem from each of those checks.
    static func skippedChecksNotes(unreadable: [ExperimentFile], experimentCount: Int, placementNames: [String]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for (n, f) in unreadable.enumerated() {
            var skipped: [String] = []
            if experimentCount > 1 { skipped.append("duplicate ids and namespace overlaps between it and the other experiment files") }
            // The placements' names cannot be pinned on one unreadable file; the first one's note carries them.
            if n == 0 && !placementNames.isEmpty {
                skipped.append("whether \(placementNames.joined(separator: ", ")) \(placementNames.count == 1 ? "is an experiment" : "are experiments") of the folder"
                               + (unreadable.count > 1 ? " (\(unreadable.count) files could not be read)" : ""))
            }
            guard !skipped.isEmpty else { continue }
            out.append(Diagnostic(file: f.file, position: SourcePosition(line: 1, column: 1), severity: .note, code: "checks_skipped",
                                  message: "not checked, because this file \(f.unreadable ?? "could not be read"): \(skipped.joined(separator: "; "))",
                                  hint: "fix this file's error and run validate again"))
        }
        return out
    }

    /// One note per products.json that could not be read (or has errors): the offering, plan and
    /// discount checks that need it were skipped. A missing products.json says so in its own error.
    static func productsNotes(productsByFolder: [String: Products?], experimentFiles: [String], placementFiles: [String],
                              diagnostics: [Diagnostic]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for (folder, products) in productsByFolder.sorted(by: { $0.key < $1.key }) where products == nil {
            let path = folder == "." ? "products.json" : "\(folder)/products.json"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let users = experimentFiles.filter { folderOf($0) == folder }.count
            let placements = placementFiles.contains { folderOf($0) == folder }
            guard users > 0 || placements else { continue }
            let reason = diagnostics.contains { $0.file == path && ($0.code == "invalid_json" || $0.code == "unreadable") } ? "could not be read" : "has errors"
            out.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), severity: .note, code: "checks_skipped",
                                  message: "not checked, because products.json \(reason): offerings, plans and discount claims of \(users) experiment \(users == 1 ? "file" : "files")\(placements ? " and placements.json" : "")",
                                  hint: "fix products.json and run validate again"))
        }
        return out
    }

    /// The experiment files of a folder, by name, sorted (every `*.json` but schema, products and placements).
    public static func experimentFiles(inFolder path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") && !reservedNames.contains($0) }.sorted()
    }

    /// How the loader names a file of a folder it was given (`Experiments/a.json`; `a.json` for ".").
    public static func path(of name: String, inFolder path: String) -> String {
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        return folder == "." ? name : "\(folder)/\(name)"
    }

    /// Checks across files: duplicate ids, and running experiments whose namespace slices overlap.
    /// `outlines` are the files being checked, in order; `context` the other files of their folders, read
    /// only to check against. A problem is reported on a checked file that clashes with a context file or an
    /// earlier checked one, in one error that names every file involved, that file first (`file:line:column`).
    /// With `changed` (`validate --against`), a clash between a changed and an unchanged file is reported at
    /// the changed file, wherever it sits in the order.
    static func folderChecks(_ outlines: [(file: String, outline: ExperimentDecoder.Outline)],
                             context: [(file: String, outline: ExperimentDecoder.Outline)] = [],
                             changed: Set<String>? = nil) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let all = outlines + context
        func place(_ file: String, _ position: SourcePosition) -> String { "\(file):\(position)" }
        func isChanged(_ j: Int) -> Bool { j < outlines.count && changed?.contains(all[j].file) == true }
        /// Whether the clash between checked file `i` and file `j` is reported at `i`.
        func reportedAt(_ i: Int, against j: Int) -> Bool {
            if changed != nil && isChanged(i) != isChanged(j) { return isChanged(i) }
            return j < i || j >= outlines.count
        }
        for (i, (file, o)) in outlines.enumerated() {
            guard let id = o.id else { continue }
            let same = all.enumerated().filter { $0.offset != i && $0.element.outline.id == id }
            guard same.contains(where: { reportedAt(i, against: $0.offset) }) else { continue }
            let others = same.map { place($0.element.file, $0.element.outline.idPosition) }
            out.append(Diagnostic(file: file, position: o.idPosition, code: "duplicate_experiment_id",
                                  message: "experiment id '\(id)' is used by \(same.count + 1) files: \(([place(file, o.idPosition)] + others).joined(separator: ", "))",
                                  hint: "ids must be unique in the folder; rename this one"))
        }
        func isRunning(_ o: ExperimentDecoder.Outline) -> Bool { o.status == .running && o.namespace != nil && o.kind == .experiment }
        for (i, (file, a)) in outlines.enumerated() where isRunning(a) {
            guard let na = a.namespace else { continue }
            let clashes = all.enumerated().filter { j, b in
                j != i && isRunning(b.outline) && b.outline.namespace.map { na.overlaps($0) } == true
            }
            guard clashes.contains(where: { reportedAt(i, against: $0.offset) }) else { continue }
            let described = clashes.map { _, b in
                let nb = b.outline.namespace!
                return "'\(b.outline.id ?? "?")' [\(ExperimentDecoder.format(nb.start)), \(ExperimentDecoder.format(nb.end))) at \(place(b.file, b.outline.namespacePosition))"
            }
            let taken = all.enumerated().compactMap { j, b -> Namespace? in
                j != i && isRunning(b.outline) && b.outline.namespace?.id == na.id ? b.outline.namespace : nil
            }
            let free = Namespace.freeSlices(taken: taken)
            let hint = free.isEmpty
                ? "namespace '\(na.id)' has no free slice: narrow a running experiment of it, or use another namespace id"
                : "free \(free.count == 1 ? "slice" : "slices") of namespace '\(na.id)': "
                    + free.map { "[\(ExperimentDecoder.format($0.lowerBound)), \(ExperimentDecoder.format($0.upperBound)))" }.joined(separator: ", ")
                    + "; move this experiment's range into \(free.count == 1 ? "it" : "one of them")"
            out.append(Diagnostic(
                file: file, position: a.namespacePosition, code: "namespace_overlap",
                message: "namespace '\(na.id)' range [\(ExperimentDecoder.format(na.start)), \(ExperimentDecoder.format(na.end))) at \(place(file, a.namespacePosition)) overlaps running "
                    + (clashes.count == 1 ? "experiment " : "experiments ") + described.joined(separator: ", "),
                hint: hint))
        }
        return out
    }

    /// The outlines of the experiment files beside `files` that are not among them: what one file is checked
    /// against when it is named alone. Their diagnostics are dropped: they are context, not what was asked about.
    private static func siblingOutlines(of files: [String], products: [String: Products?],
                                        conditionLinter: @escaping ConditionLinter) -> [(file: String, outline: ExperimentDecoder.Outline)] {
        let named = Set(files.map(canonical))
        var seenFolders: Set<String> = []
        var out: [(file: String, outline: ExperimentDecoder.Outline)] = []
        for file in files {
            let folder = folderOf(file)
            guard seenFolders.insert(canonical(folder)).inserted else { continue }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && !reservedNames.contains($0) }.sorted()
            for name in names {
                let sibling = folder == "." ? name : "\(folder)/\(name)"
                guard !named.contains(canonical(sibling)) else { continue }
                let sink = DiagnosticSink(file: sibling)
                guard let root = parse(file: sibling, sink: sink) else { continue }
                let (_, outline) = ExperimentDecoder(sink: sink, products: products[folder] ?? nil, conditionLinter: conditionLinter).decode(root)
                out.append((sibling, outline))
            }
        }
        return out
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func folderOf(_ file: String) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The id and kind of each experiment file in `folder`, read without checking the files.
    private static func siblingExperimentKinds(folder: String) -> [String: Experiment.Kind] {
        var kinds: [String: Experiment.Kind] = [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && !reservedNames.contains($0) }
        for name in names {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name), let node = try? JSONReader.parse([UInt8](data)),
                  case .object(let members) = node.value, case .string(let id)? = members.first(where: { $0.0 == "id" })?.1 else { continue }
            let isHoldout = members.contains { $0.0 == "kind" && $0.1 == .string("holdout") }
            kinds[id] = isHoldout ? .holdout : .experiment
        }
        return kinds
    }

    private static func parse(file: String, sink: DiagnosticSink) -> JSONNode? {
        guard let data = FileManager.default.contents(atPath: file) else {
            sink.error("unreadable", at: SourcePosition(line: 1, column: 1), "cannot read the file", hint: "check its permissions")
            return nil
        }
        do {
            return try JSONReader.parse([UInt8](data))
        } catch {
            sink.error("invalid_json", at: error.position, "not valid JSON: \(error.message)", hint: "fix the syntax at this position; a JSON linter or editor can help")
            return nil
        }
    }

    private static func loadProducts(folder: String, into diagnostics: inout [Diagnostic], files: inout [String]) -> Products? {
        let path = folder == "." ? "products.json" : "\(folder)/products.json"
        guard FileManager.default.fileExists(atPath: path) else {
            diagnostics.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), code: "missing_products",
                                          message: "products.json not found beside the experiments, so no offering, plan or discount claim was checked",
                                          hint: "add the price table (docs/Experiments.md) so offerings and discounts can be checked"))
            return nil
        }
        files.append(path)
        let sink = DiagnosticSink(file: path)
        let products = parse(file: path, sink: sink).flatMap { ProductsDecoder(sink: sink).decode($0) }
        diagnostics += sink.diagnostics
        return sink.hasErrors ? nil : products
    }
}
