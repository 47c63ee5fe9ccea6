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

        public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
        public var warningCount: Int { diagnostics.filter { $0.severity == .warning }.count }
    }

    /// Thrown by `load` when the folder has errors.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var diagnostics: [Diagnostic]
        /// The error count and the first errors, each in `abctl validate`'s `file:line:column: error: message` form.
        public var description: String {
            let errors = diagnostics.filter { $0.severity == .error }.sorted { ($0.file, $0.position) < ($1.file, $1.position) }
            let first = errors.prefix(3).map { "\($0.file):\($0.position): error: \($0.message)" }.joined(separator: "\n")
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
    public static func validate(paths: [String], now: Date = Date(), conditionLinter: @escaping ConditionLinter) -> Report {
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
                let names = ((try? fm.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") && !reservedNames.contains($0) }.sorted()
                let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
                experimentFiles += names.map { folder == "." ? $0 : "\(folder)/\($0)" }
                if fm.fileExists(atPath: folder + "/" + placementsName) { placementFiles.append(folder == "." ? placementsName : "\(folder)/\(placementsName)") }
                if names.isEmpty {
                    diagnostics.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), severity: .warning, code: "no_experiments", message: "no experiment files in this folder"))
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
        for file in experimentFiles {
            let folderRaw = (file as NSString).deletingLastPathComponent
            let folder = folderRaw.isEmpty ? "." : folderRaw
            if productsByFolder[folder] == nil {
                productsByFolder[folder] = loadProducts(folder: folder, into: &diagnostics, files: &files)
            }
            files.append(file)
            let sink = DiagnosticSink(file: file)
            guard let root = parse(file: file, sink: sink) else { diagnostics += sink.diagnostics; continue }
            var decoder = ExperimentDecoder(sink: sink, products: productsByFolder[folder] ?? nil, conditionLinter: conditionLinter)
            decoder.now = now
            let (experiment, outline) = decoder.decode(root)
            diagnostics += sink.diagnostics
            outlines.append((file, outline))
            if let experiment, !sink.hasErrors { experiments.append(experiment) }
        }
        diagnostics += folderChecks(outlines, context: siblingOutlines(of: experimentFiles, products: productsByFolder, conditionLinter: conditionLinter))

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
                let decoded = PlacementsDecoder(sink: sink, products: productsByFolder[folder] ?? nil, experiments: kinds, conditionLinter: conditionLinter).decode(root)
                if placements.isEmpty { placements = decoded }
            }
            diagnostics += sink.diagnostics
        }

        let hasErrors = diagnostics.contains { $0.severity == .error }
        let products = productsByFolder.values.compactMap { $0 }.first
        let catalog = hasErrors ? nil : products.map { ExperimentCatalog(experiments: experiments, products: $0, placements: placements) }
        return Report(files: files, diagnostics: diagnostics, catalog: catalog)
    }

    /// Checks across files: duplicate ids, and running experiments whose namespace slices overlap.
    /// `outlines` are the files being checked, in order; `context` the other files of their folders, read
    /// only to check against. A problem is reported on a checked file that clashes with a context file or an
    /// earlier checked one, in one error that names every file involved, that file first (`file:line:column`).
    static func folderChecks(_ outlines: [(file: String, outline: ExperimentDecoder.Outline)],
                             context: [(file: String, outline: ExperimentDecoder.Outline)] = []) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let all = outlines + context
        func place(_ file: String, _ position: SourcePosition) -> String { "\(file):\(position)" }
        for (i, (file, o)) in outlines.enumerated() {
            guard let id = o.id else { continue }
            let same = all.enumerated().filter { $0.offset != i && $0.element.outline.id == id }
            guard same.contains(where: { $0.offset < i || $0.offset >= outlines.count }) else { continue }
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
            guard clashes.contains(where: { $0.offset < i || $0.offset >= outlines.count }) else { continue }
            let described = clashes.map { _, b in
                let nb = b.outline.namespace!
                return "'\(b.outline.id ?? "?")' [\(ExperimentDecoder.format(nb.start)), \(ExperimentDecoder.format(nb.end))) at \(place(b.file, b.outline.namespacePosition))"
            }
            out.append(Diagnostic(
                file: file, position: a.namespacePosition, code: "namespace_overlap",
                message: "namespace '\(na.id)' range [\(ExperimentDecoder.format(na.start)), \(ExperimentDecoder.format(na.end))) at \(place(file, a.namespacePosition)) overlaps running "
                    + (clashes.count == 1 ? "experiment " : "experiments ") + described.joined(separator: ", "),
                hint: "give each running experiment of the namespace its own slice, e.g. [0, 0.5) and [0.5, 1)"))
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
            diagnostics.append(Diagnostic(file: path, position: SourcePosition(line: 1, column: 1), code: "missing_products", message: "products.json not found beside the experiments", hint: "add the price table (SPEC §1) so offerings and discounts can be checked"))
            return nil
        }
        files.append(path)
        let sink = DiagnosticSink(file: path)
        let products = parse(file: path, sink: sink).flatMap { ProductsDecoder(sink: sink).decode($0) }
        diagnostics += sink.diagnostics
        return sink.hasErrors ? nil : products
    }
}
