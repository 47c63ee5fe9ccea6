import Dispatch
import Events
import ExperimentDefinitions

/// The writer's two filters over `facts`: which users can have facts (`ExposedUserFilter`, so a
/// transaction skips recomputing users with none) and which (experiment, user) pairs have a sticky
/// record (`StickyRecordFilter`, published to assign's readers). Each is trusted only while no other
/// connection has committed since it was complete (`PRAGMA data_version`).
///
/// Owned by `GroupCommitWriter` and used only on its queue, on its connection.
final class WriterFilters {
    private let connection: Connection
    /// Every user with an exposure as of the last commit; nil until built and after another
    /// connection committed.
    private(set) var exposedUsers: ExposedUserFilter?
    /// `PRAGMA data_version` when `exposedUsers` was complete: it changes only when another
    /// connection (another process's ingest, say) commits.
    private var exposedUsersVersion: Int64 = 0
    private var lastBuild: UInt64?

    /// The (experiment, user) pairs with a sticky record, for the assign path (see
    /// `StickyRecordFilter`); built only once a sticky reader asks for it.
    let stickyRecords = StickyRecordFilter()
    /// Whether a sticky reader wants `stickyRecords` kept.
    var stickyRecordsWanted = false
    /// `PRAGMA data_version` when `stickyRecords` held every pair of `facts`; nil when it may not.
    private var stickyRecordsVersion: Int64?
    /// The WAL index the filter's stamps are read from (the writer's connection keeps it mapped).
    private var walIndex: WALIndexWatch?

    init(connection: Connection) { self.connection = connection }

    /// Whether the open transaction's new sticky records go into `stickyRecords` (it is complete).
    var keepsStickyRecords: Bool { stickyRecordsVersion != nil }

    /// The open transaction stored an exposure of `userID` to `experiment`: a sticky record once committed.
    func exposed(experiment: String, userID: UserID) {
        if stickyRecordsVersion != nil { stickyRecords.insert(experiment: experiment, userID: userID) }
    }

    /// After a commit: the users the transaction exposed can have facts.
    func committed(exposing users: [UserID]) {
        if exposedUsers != nil { for user in users { exposedUsers!.insert(user) } }
    }

    /// The filter of exposed users when it can be trusted in the open transaction, else nil;
    /// and `stickyRecords` brought up to date for it (see `StickyRecordFilter`).
    ///
    /// Both are built from `facts` (one row per exposed user and experiment) on first use, and
    /// again when another connection has committed, as that may have stored exposures; at most
    /// once a second, so a steady writer elsewhere costs a recompute of every touched user (and
    /// sticky reads from the store) instead.
    func current() throws -> ExposedUserFilter? {
        let version = try connection.scalarInt("PRAGMA data_version") ?? 0
        let usersValid = exposedUsers.map { version == exposedUsersVersion && $0.inserted <= $0.capacity } ?? false
        if !usersValid { exposedUsers = nil }
        if stickyRecordsVersion != nil && stickyRecordsVersion != version { dropStickyRecords() }
        let stickyValid = !stickyRecordsWanted || stickyRecordsVersion != nil
        if usersValid && stickyValid { return exposedUsers }
        guard mayBuild() else { return exposedUsers }
        try build(users: !usersValid, stickyRecords: !stickyValid, version: version)
        return exposedUsers
    }

    /// In a read transaction of the caller's: rebuilds `stickyRecords` if another connection has
    /// committed since it was complete (at most once a second).
    func refreshStickyRecords() throws {
        let version = try connection.scalarInt("PRAGMA data_version") ?? 0
        guard stickyRecordsVersion != version else { return }
        if stickyRecordsVersion != nil { dropStickyRecords() }
        if mayBuild() { try build(users: false, stickyRecords: true, version: version) }
    }

    /// After a commit on this connection: readers may trust `stickyRecords` at the WAL index's
    /// stamp if no other connection has committed since it was complete. The stamp is read
    /// before `data_version`, so an unchanged version means the stamp shows only this
    /// connection's commits, whose exposures the filter already holds.
    func publishStickyRecords() {
        guard let version = stickyRecordsVersion else { return }
        if walIndex == nil { walIndex = WALIndexWatch(connection: connection) }
        let stamp = walIndex?.stamp()
        guard let stamp, let now = try? connection.scalarInt("PRAGMA data_version"), now == version else {
            dropStickyRecords()
            return
        }
        stickyRecords.publish(stamp)
    }

    /// Readers stop trusting `stickyRecords` until it is built again.
    func dropStickyRecords() {
        stickyRecordsVersion = nil
        stickyRecords.publish(nil)
    }

    /// At most one build a second.
    private func mayBuild() -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if let lastBuild, now &- lastBuild < 1_000_000_000 { return false }
        lastBuild = now
        return true
    }

    /// Reads every (experiment, user) pair of `facts` in the open transaction into the filters asked for.
    private func build(users: Bool, stickyRecords sticky: Bool, version: Int64) throws {
        let rows = try connection.scalarInt("SELECT count(*) FROM facts") ?? 0
        var filter = users ? ExposedUserFilter(capacity: Int(rows) * 2) : nil
        if sticky { stickyRecords.reset(expecting: Int(rows)) }
        // A person's linked ids have its sticky records too.
        let pairs = try connection.prepare(sticky ? """
            SELECT experiment, user_id FROM facts
            UNION ALL SELECT f.experiment, p.user_id FROM people p JOIN facts f ON f.user_id = p.person_id WHERE p.user_id <> p.person_id
            """ : "SELECT experiment, user_id FROM facts")
        while try pairs.step() {
            if filter != nil { filter!.insert(UserID(pairs.text(1))) }
            if sticky {
                let hash = pairs.withText(0) { experiment in pairs.withText(1) { user in StickyRecordFilter.PairHash(experiment: experiment, user: user) } }
                stickyRecords.insert(hash)
            }
        }
        if let filter {
            exposedUsers = filter
            exposedUsersVersion = version
        }
        if sticky { stickyRecordsVersion = version }
    }
}
