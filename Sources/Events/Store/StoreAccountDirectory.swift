import ExperimentDefinitions

/// The user behind a store account id: the App Store's `appAccountToken` must be a UUID
/// and Google Play's obfuscated account id at most 64 characters, while user ids are free text, so
/// an exposure may carry `store_account_id`, what the app handed the store for this user. The
/// stores keep it on the exposure (the user's own row) with an index on it, and the webhooks ask here.
public protocol StoreAccountDirectory: Sendable {
    /// The user whose exposure carried `storeAccountID` (the earliest such exposure's user when
    /// several users' did), or nil when none did.
    func user(forStoreAccount storeAccountID: String) throws -> UserID?
}
