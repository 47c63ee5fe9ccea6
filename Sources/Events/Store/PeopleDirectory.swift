import ExperimentDefinitions

/// SPEC §4 people as a store keeps them: which person an id belongs to, and how many
/// `identified` events changed nothing because they would have merged two people.
public protocol PeopleDirectory: Sendable {
    /// The key of the person `userID` belongs to: its known id, or `userID` itself while it has no link.
    func person(of userID: UserID) throws -> UserID
    /// Stored `identified` events that were conflicts (`identity_conflicts`).
    func identityConflicts() throws -> Int
}
