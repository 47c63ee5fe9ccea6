import Foundation

/// The files of an experiments folder as they were at REF (`validate --against REF`): REF is
/// another folder, or a git revision read with the `git` command from the folder's repository.
public struct ReferenceFiles: Sendable {
    /// How REF is named in messages: the folder's path, or the revision as given.
    public var label: String
    /// File name (no folder) → bytes, for every `*.json` directly in the folder at REF.
    public var files: [String: [UInt8]]

    public init(label: String, files: [String: [UInt8]]) {
        self.label = label
        self.files = files
    }

    /// Why REF could not be read: neither a folder nor a revision the repository knows, or `git` failed.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }
}
