import ExperimentDefinitions
import Foundation

/// Reading REF: a folder's files, or a revision's through `git`.
extension ReferenceFiles {
    /// Reads `ref` for the experiments folder `folder`: a folder when `ref` names one, else a git
    /// revision, each git run within `limits`.
    public static func read(_ ref: String, for folder: String, limits: GitCommand.Limits = .reading) throws(ReadError) -> ReferenceFiles {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: ref, isDirectory: &isDirectory), isDirectory.boolValue {
            return readFolder(ref)
        }
        return try readRevision(ref, folder: folder, limits: limits)
    }

    private static func readFolder(_ path: String) -> ReferenceFiles {
        var files: [String: [UInt8]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where name.hasSuffix(".json") {
            if let data = FileManager.default.contents(atPath: path + "/" + name) { files[name] = [UInt8](data) }
        }
        return ReferenceFiles(label: path, files: files)
    }

    /// Two `git` runs whatever the number of files: `ls-tree REF` in the folder (its entries at REF),
    /// then one `cat-file --batch` for all of their blobs.
    private static func readRevision(_ revision: String, folder: String, limits: GitCommand.Limits) throws(ReadError) -> ReferenceFiles {
        guard !revision.hasPrefix("-") else { throw ReadError(description: "'\(revision)' is neither a folder nor a git revision") }
        let listing = try git(["ls-tree", "-z", revision, "--"], in: folder, input: nil, limits: limits)
        guard listing.status == 0 else {
            let why = listing.errorText
            throw ReadError(description: "'\(revision)' is neither a folder nor a git revision of the repository holding \(folder)" + (why.isEmpty ? "" : " (git: \(why))"))
        }
        // Each entry: "<mode> <type> <object>\t<name>\0".
        var blobs: [(name: String, object: String)] = []
        for entry in listing.output.split(separator: 0) {
            guard let tab = entry.firstIndex(of: 9) else { continue }
            let head = String(decoding: entry[entry.startIndex..<tab], as: UTF8.self).split(separator: " ")
            let name = String(decoding: entry[(tab + 1)...], as: UTF8.self)
            guard head.count == 3, head[1] == "blob", name.hasSuffix(".json") else { continue }
            blobs.append((name, String(head[2])))
        }
        guard !blobs.isEmpty else { return ReferenceFiles(label: revision, files: [:]) }
        let batch = try git(["cat-file", "--batch"], in: folder, input: Array(blobs.map { $0.object + "\n" }.joined().utf8), limits: limits)
        guard batch.status == 0 else {
            throw ReadError(description: "git cat-file failed reading \(revision): \(String(decoding: batch.error, as: UTF8.self))")
        }
        // Each answer: "<object> blob <size>\n<size bytes>\n", in the order asked.
        var files: [String: [UInt8]] = [:]
        var at = batch.output.startIndex
        for blob in blobs {
            guard let newline = batch.output[at...].firstIndex(of: 10) else { break }
            let header = String(decoding: batch.output[at..<newline], as: UTF8.self).split(separator: " ")
            guard header.count == 3, let size = Int(header[2]), newline + 1 + size <= batch.output.endIndex else {
                throw ReadError(description: "git cat-file gave an unexpected answer for \(blob.name) at \(revision)")
            }
            files[blob.name] = Array(batch.output[(newline + 1)..<(newline + 1 + size)])
            at = newline + 1 + size + 1
        }
        return ReferenceFiles(label: revision, files: files)
    }

    private static func git(_ arguments: [String], in folder: String, input: [UInt8]?,
                            limits: GitCommand.Limits) throws(ReadError) -> GitCommand.Outcome {
        do {
            return try GitCommand.run(arguments, in: folder, input: input, limits: limits)
        } catch {
            throw ReadError(description: error.description)
        }
    }
}
