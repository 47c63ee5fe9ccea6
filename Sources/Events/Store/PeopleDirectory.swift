import ExperimentDefinitions

/// People (one person, many ids: docs/People.md) as a store keeps them: which person an id
/// belongs to, and how many `identified` events changed nothing because they would have merged
/// two people.
public protocol PeopleDirectory: Sendable {
    /// The key of the person `userID` belongs to: its known id, or `userID` itself while it has no link.
    func person(of userID: UserID) throws -> UserID
    /// Stored `identified` events that were conflicts (`identity_conflicts`).
    func identityConflicts() throws -> Int
    /// The persons of more than one id (the keys of `people`): a report compares their share
    /// between arms (the `identity_imbalance` warning).
    func personsOfSeveralIds() throws -> Set<UserID>
    /// Store payments (App Store and Google Play `purchased`, `converted`, `renewed`) from `since`
    /// to `until`, and how many of them are stored under a store token no exposure has named yet
    /// (the `unmatched_store_payments` warning): a user id shaped as a lowercase UUID (App Store
    /// tokens, and the ids AbctlClient hands Google Play) with no exposure and in no person.
    func storePayments(since: Timestamp?, until: Timestamp) throws -> (payments: Int, unmatched: Int)
}

/// The SQL both stores share for `storePayments`: which events are store payments. Both stores
/// index these rows by time under this very condition (a planner uses a partial index only for a
/// query that states its condition).
public enum StorePaymentQuery {
    public static let condition: String = {
        let types = [EventType.purchased, .converted, .renewed].map { String($0.rawValue) }.joined(separator: ", ")
        return "type IN (\(types)) AND store IN ('app_store', 'google_play')"
    }()
}
