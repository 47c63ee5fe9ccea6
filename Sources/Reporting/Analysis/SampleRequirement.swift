/// How many users the primary metric needs per variant to detect `minimum_effect`, and how many the smallest arm has.
///
/// For metrics out of trial starters (`trial_to_paid`, cancel rates) both numbers count trial starters.
public struct SampleRequirement: Sendable, Equatable {
    /// From the Statistics power function; nil when it cannot be computed (see `reasonUnknown`).
    public var perVariant: Int?
    /// The smallest arm's count in the primary metric's denominator.
    public var smallestArm: Int
    public var reasonUnknown: String?
    /// Why the arms will not reach `perVariant` at the last 7 days' arrival rate (no arrivals, or more
    /// than ten years away); nil when they will, or when that is unknown. "Keep it running" is then not a next step.
    public var unreachable: String?

    public init(perVariant: Int?, smallestArm: Int, reasonUnknown: String? = nil) {
        self.perVariant = perVariant
        self.smallestArm = smallestArm
        self.reasonUnknown = reasonUnknown
    }

    /// Every arm has the users the power calculation asks for.
    public var reached: Bool { perVariant.map { smallestArm >= $0 } ?? false }
    /// Users still missing per variant (0 when reached or unknown).
    public var missingPerVariant: Int { perVariant.map { max(0, $0 - smallestArm) } ?? 0 }
}
