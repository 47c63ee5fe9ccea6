/// The sticky record of SPEC §2 on the assign path: the variant a user was first exposed to.
///
/// Called on every assign request for every sticky experiment, so implementations keep their
/// connections between calls. An exposure acknowledged by the store is seen by the next call.
public protocol StickyReader: Sendable {
    /// The variant `userID` was first exposed to in `experiment`, or nil when never exposed.
    func exposedVariant(experiment: String, userID: String) throws -> String?
}
