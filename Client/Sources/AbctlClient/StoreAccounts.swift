import Foundation

/// One store account id per user, made once and kept on disk: a lowercase UUID, which
/// the App Store takes as `appAccountToken` and Google Play as the obfuscated account id (at most
/// 64 characters), while user ids are free text. Every exposure the client logs carries it as
/// `store_account_id`, and the server maps the stores' webhooks back to the user through it.
///
/// Kept in memory; the file is rewritten (atomically) only when a user gets an id.
struct StoreAccounts {
    let file: URL
    private var ids: [String: String] = [:]
    private(set) var loadProblem: String?

    init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            for item in try JSONValue.parse([UInt8](data))["accounts"]?.array ?? [] {
                guard let user = item["user_id"]?.string, let id = item["store_account_id"]?.string, !id.isEmpty else { continue }
                ids[user] = id
            }
        } catch {
            ids = [:]
            loadProblem = "the store account ids \(file.path) could not be read (\(error)); new ids will be made"
        }
    }

    /// The user's id, made and written to disk the first time.
    mutating func id(for user: UserID) throws -> String {
        if let id = ids[user.text] { return id }
        let id = UUID().uuidString.lowercased()
        ids[user.text] = id
        let items = ids.sorted { $0.key < $1.key }.map { JSONValue.object([("user_id", .string($0.key)), ("store_account_id", .string($0.value))]) }
        let text = JSONValue.object([("version", .number(1)), ("accounts", .array(items))]).serialized()
        do {
            try Data(text.utf8).write(to: file, options: .atomic)
        } catch {
            ids[user.text] = nil
            throw error
        }
        return id
    }
}
