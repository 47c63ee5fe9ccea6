import Foundation

/// API keys and their scopes, from `ABCTL_API_KEYS` or a keys file.
///
/// Keys are compared in constant time: every configured key is compared in full, whatever
/// matched, so response timing says nothing about how much of a guess was right.
public struct APIKeys: Sendable {
    public enum Scope: String, Sendable, CaseIterable, Comparable {
        /// `POST /v1/assign`, `POST /v1/copy/check`.
        case assign
        /// `POST /v1/events`.
        case ingest
        /// Everything, including `GET /v1/experiments`, reports, the console and its one action.
        case admin
        /// Read only: `GET /v1/experiments`, reports and the console (sign-in included), nothing that acts.
        case report
        /// A GrowthBook client key: sent in the path of `GET /api/features/{clientKey}`, it grants
        /// nothing else (not even through `admin`'s everything: admin keys are not client keys).
        case sdk
        /// The key an app build carries (anyone can read it out of the binary): `POST /v1/assign`
        /// and `exposure` events only, so a forged purchase from a device never reaches a report.
        case app

        public static func < (a: Scope, b: Scope) -> Bool { a.rawValue < b.rawValue }
    }

    public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    struct Entry: Sendable {
        var key: [UInt8]
        var scopes: Set<Scope>
        /// Who holds the key, for records and logs: as written, else the first 8 hex digits of the key's SHA-256.
        var name: String
    }

    /// A configured key as the console sees it: its bytes, scopes and name.
    public struct Holder: Sendable {
        public var key: [UInt8]
        public var scopes: Set<Scope>
        public var name: String
    }

    /// Every configured key, in the order written.
    public var holders: [Holder] { entries.map { Holder(key: $0.key, scopes: $0.scopes, name: $0.name) } }

    private let entries: [Entry]

    public static let none = APIKeys(entries: [])

    init(entries: [Entry]) { self.entries = entries }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// `KEY:scope,scope[:NAME];KEY2:scope` (the `ABCTL_API_KEYS` format). A key may hold ':', so
    /// the last field is read as scopes when it is a list of scopes, else as the name (then the one
    /// before it is the scopes): a name is never a list of scopes.
    public static func parse(environment text: String) throws(ConfigurationError) -> APIKeys {
        var entries: [Entry] = []
        for (n, item) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let item = item.trimmingSpaces()
            if item.isEmpty { continue }
            let place = "ABCTL_API_KEYS entry \(n + 1)"
            guard let colon = item.lastIndex(of: ":") else {
                throw ConfigurationError(description: "\(place) has no ':'; write KEY:scope,scope[:NAME];KEY2:scope")
            }
            let last = String(item[item.index(after: colon)...])
            let head = item[..<colon]
            if !isScopeList(last), let second = head.lastIndex(of: ":") {
                entries.append(try entry(key: String(head[..<second]), scopes: String(head[head.index(after: second)...]),
                                         name: last, where: place))
            } else {
                entries.append(try entry(key: String(head), scopes: last, name: nil, where: place))
            }
        }
        return try APIKeys(checking: entries)
    }

    /// The keys of the file at `path` (`--keys-file`), read at start and on SIGHUP.
    public static func read(file path: String) throws(ConfigurationError) -> APIKeys {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(description: "cannot read --keys-file '\(path)'")
        }
        return try parse(file: String(decoding: data, as: UTF8.self), name: path)
    }

    /// One `KEY scope,scope [NAME]` a line; blank lines and lines starting with `#` are skipped.
    public static func parse(file text: String, name: String) throws(ConfigurationError) -> APIKeys {
        var entries: [Entry] = []
        for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2 || parts.count == 3 else {
                throw ConfigurationError(description: "\(name):\(n + 1): expected 'KEY scope,scope [NAME]', found \(parts.count) fields")
            }
            entries.append(try entry(key: String(parts[0]), scopes: String(parts[1]), name: parts.count == 3 ? String(parts[2]) : nil,
                                     where: "\(name):\(n + 1)"))
        }
        return try APIKeys(checking: entries)
    }

    private static func isScopeList(_ text: String) -> Bool {
        let names = text.split(separator: ",").map { $0.trimmingSpaces() }
        return !names.isEmpty && names.allSatisfy { Scope(rawValue: $0) != nil }
    }

    private init(checking entries: [Entry]) throws(ConfigurationError) {
        var seen = Set<[UInt8]>()
        for e in entries where !seen.insert(e.key).inserted {
            throw ConfigurationError(description: "the same API key is listed twice")
        }
        self.entries = entries
    }

    private static func entry(key: String, scopes: String, name: String?, where place: String) throws(ConfigurationError) -> Entry {
        let key = key.trimmingSpaces()
        guard !key.isEmpty else { throw ConfigurationError(description: "\(place): the key is empty") }
        guard key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ConfigurationError(description: "\(place): a key may only hold printable ASCII without spaces")
        }
        var set = Set<Scope>()
        for name in scopes.split(separator: ",") {
            let name = name.trimmingSpaces()
            guard let scope = Scope(rawValue: name) else {
                throw ConfigurationError(description: "\(place): unknown scope '\(name)'; scopes are assign, ingest, admin, report, sdk, app")
            }
            set.insert(scope)
        }
        guard !set.isEmpty else { throw ConfigurationError(description: "\(place): no scopes; give assign, ingest, admin, report, sdk or app") }
        let given = name?.trimmingSpaces() ?? ""
        if !given.isEmpty, !given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw ConfigurationError(description: "\(place): a key's name may only hold printable ASCII without spaces")
        }
        let bytes = Array(key.utf8)
        return Entry(key: bytes, scopes: set, name: given.isEmpty ? String(decoding: Digest.sha256Hex(bytes).prefix(8), as: UTF8.self) : given)
    }

    /// The configured key equal to `key` (compared in constant time, every key in full), or nil.
    public func holder(key: String) -> Holder? {
        let token = Array(key.utf8)
        var found: Entry?
        for entry in entries where Self.constantTimeEquals(token, entry.key) { found = entry }
        return found.map { Holder(key: $0.key, scopes: $0.scopes, name: $0.name) }
    }

    /// The scopes of the key in `Authorization: Bearer KEY`, or nil when there is no such key.
    public func scopes(authorization: String?) -> Set<Scope>? {
        guard let authorization else { return nil }
        let bytes = Array(authorization.utf8)
        let prefix = Array("bearer ".utf8)
        guard bytes.count > prefix.count, zip(bytes.prefix(prefix.count), prefix).allSatisfy({ ($0 | 0x20) == $1 }) else { return nil }
        var start = prefix.count
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        let token = Array(bytes[start...])
        var found: Set<Scope>?
        for entry in entries {
            // No early exit: each key is compared in full.
            if Self.constantTimeEquals(token, entry.key) { found = entry.scopes }
        }
        return found
    }

    /// Equal length and equal bytes, taking time that depends only on the lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt64(truncatingIfNeeded: a.count ^ b.count)
        let n = max(a.count, b.count)
        if n == 0 { return difference == 0 }
        for i in 0..<n {
            let x = a.isEmpty ? 0 : a[i % a.count]
            let y = b.isEmpty ? 0 : b[i % b.count]
            difference |= UInt64(x ^ y)
        }
        return difference == 0
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension APIKeys {
    /// Whether `key` is configured with the `sdk` scope (compared in constant time, as bearer keys are).
    public func isClientKey(_ key: String) -> Bool {
        let token = Array(key.utf8)
        var found = false
        for entry in entries {
            if Self.constantTimeEquals(token, entry.key), entry.scopes.contains(.sdk) { found = true }
        }
        return found
    }
}
