import ExperimentDefinitions
import Foundation

/// One experiment as the `Assigner` needs it: everything precomputed that can be (the seed's
/// hash state, bucket ranges from normalised weights, the compiled condition).
///
/// A class so that iterating a snapshot retains one reference, not every field.
/// Build it from the loaded model (`AssignableExperiment(_: Experiment)`) or directly in tests.
public final class AssignableExperiment: Sendable {
    public typealias Status = Experiment.Status

    public let id: String
    public let status: Status
    /// A global holdout (its arm 0 is `holdout`), or an experiment.
    public let isHoldout: Bool
    /// With status `shipped`: the winner's variant index.
    public let winnerIndex: Int?
    public let start: Date?
    public let end: Date?
    public let seed: String
    public let hashVersion: Int
    public let coverage: Double
    public let namespace: Namespace?
    public let targeting: Targeting
    let hasTargeting: Bool
    public let condition: Condition?
    public let sticky: Bool
    /// User id → variant index (forced keys that name no variant are dropped).
    public let forced: [UserID: Int]
    /// `forced` as a list while it holds a few QA ids: comparing a few ids (lengths first) costs
    /// less than hashing the request's id on every assignment.
    let forcedFew: [(user: UserID, index: Int)]?
    public let variantKeys: [String]
    /// The weights as given (positive); ranges use them divided by their sum.
    public let weights: [Double]
    /// `[start, start + coverage × w)` per variant, from normalised weights.
    public let ranges: [Range<Double>]
    /// With a rollout: each stage's end (nil for the last) and its ranges (coverage × share);
    /// empty without one.
    let stages: [(endsAt: Date?, ranges: [Range<Double>])]
    /// The safeguard stops in force; `ArmStops.none` when nothing is stopped.
    public let stops: ArmStops
    /// A bandit: its weights are the allocation period's.
    public let isBandit: Bool
    /// A bandit's periods in force order (from the store); empty: the file's weights.
    public let periods: [BanditPeriod]
    /// A bandit's ranges: entry 0 the file's weights, then one per period; stopped arms weigh 0.
    let banditRanges: [[Range<Double>]]
    /// Per entry of `banditRanges`, its start in RFC 3339 (`allocation_period`), formatted once here
    /// rather than in every answer (formatting was a quarter of a bandit's assign cost).
    let banditPeriodTexts: [String?]

    /// The loaded experiment this was prepared from (paywalls, metrics, names), when built
    /// with `init(_: Experiment)`; nil for experiments built field by field.
    public let model: Experiment?

    /// FNV state after the seed (hash version 2 hashes `seed + user`).
    @usableFromInline let seedState: UInt32

    /// - Throws: `AssignableExperimentError` for a hash version other than 1 or 2, fewer than
    ///   one variant, or weights that are not positive finite numbers.
    public init(id: String, status: Status, start: Date? = nil, end: Date? = nil, seed: String? = nil,
                hashVersion: Int = 2, coverage: Double = 1, namespace: Namespace? = nil,
                targeting: Targeting = Targeting(), condition: Condition? = nil, sticky: Bool = false,
                forced: [UserID: String] = [:], variants: [(key: String, weight: Double)], rollout: Rollout? = nil,
                stops: ArmStops = .none, model: Experiment? = nil, isHoldout: Bool = false, winner: String? = nil) throws {
        guard hashVersion == 1 || hashVersion == 2 else { throw AssignableExperimentError.unknownHashVersion(id: id, hashVersion) }
        guard !variants.isEmpty else { throw AssignableExperimentError.noVariants(id: id) }
        guard variants.allSatisfy({ $0.weight.isFinite && $0.weight > 0 }) else { throw AssignableExperimentError.badWeights(id: id) }
        self.id = id
        self.status = status
        self.start = start
        self.end = end
        self.seed = seed ?? id
        self.hashVersion = hashVersion
        self.coverage = coverage
        self.namespace = namespace
        self.targeting = targeting
        self.hasTargeting = !targeting.isEmpty
        self.condition = condition
        self.sticky = sticky
        self.variantKeys = variants.map(\.key)
        self.isHoldout = isHoldout
        self.winnerIndex = status == .shipped ? winner.flatMap { variants.map(\.key).firstIndex(of: $0) } : nil
        self.weights = variants.map(\.weight)
        var forcedIndex: [UserID: Int] = [:]
        for (user, key) in forced {
            if let i = variantKeys.firstIndex(of: key) { forcedIndex[user] = i }
        }
        self.forced = forcedIndex
        self.forcedFew = forcedIndex.count <= Self.fewForced ? forcedIndex.map { (user: $0.key, index: $0.value) } : nil
        let total = weights.reduce(0, +)
        let normalised = weights.map { $0 / total }
        self.ranges = Self.ranges(normalisedWeights: normalised, coverage: coverage)
        if let rollout, let start, !rollout.stages.isEmpty {
            self.stages = zip(rollout.stageEnds(start: start), rollout.stages).map { end, stage in
                (endsAt: end, ranges: Self.ranges(normalisedWeights: normalised, coverage: coverage * stage.share))
            }
        } else {
            self.stages = []
        }
        self.stops = stops
        self.seedState = FNV1a.update(FNV1a.offsetBasis, with: self.seed)
        self.model = model
        self.isBandit = model?.allocation != nil
        self.periods = []
        self.banditRanges = isBandit ? Self.banditRanges(fileWeights: weights, periods: [], stops: stops, coverage: coverage) : []
        self.banditPeriodTexts = isBandit ? Self.periodTexts(start: start, periods: []) : []
    }

    /// Prepares a loaded experiment: compiles its condition (with `savedGroups` for
    /// `$inGroup`), drops forced keys that name no variant.
    public convenience init(_ e: Experiment, savedGroups: [String: [JSONValue]] = [:]) throws {
        try self.init(id: e.id, status: e.status, start: e.start, end: e.end, seed: e.seed, hashVersion: e.hashVersion,
                      coverage: e.coverage, namespace: e.namespace, targeting: e.targeting,
                      condition: try e.condition.map { try Condition($0, savedGroups: savedGroups) }, sticky: e.sticky,
                      forced: e.forced, variants: e.variants.map { (key: $0.key, weight: $0.weight) }, rollout: e.rollout, model: e,
                      isHoldout: e.isHoldout, winner: e.winner)
    }

    /// The same experiment with other safeguard stops in force (the server swaps these in as
    /// stops are read from the store).
    public func withStops(_ stops: ArmStops) -> AssignableExperiment {
        AssignableExperiment(copying: self, stops: stops, periods: periods)
    }

    /// The same bandit with other allocation periods in force (the server swaps these in as it
    /// reads them from the store).
    public func withPeriods(_ periods: [BanditPeriod]) -> AssignableExperiment {
        AssignableExperiment(copying: self, stops: stops, periods: periods)
    }

    private init(copying e: AssignableExperiment, stops: ArmStops, periods: [BanditPeriod]) {
        id = e.id; status = e.status; start = e.start; end = e.end; seed = e.seed; hashVersion = e.hashVersion
        coverage = e.coverage; namespace = e.namespace; targeting = e.targeting; hasTargeting = e.hasTargeting
        condition = e.condition; sticky = e.sticky; forced = e.forced; forcedFew = e.forcedFew; variantKeys = e.variantKeys; weights = e.weights
        ranges = e.ranges; stages = e.stages; model = e.model; seedState = e.seedState
        isHoldout = e.isHoldout; winnerIndex = e.winnerIndex
        self.stops = stops
        isBandit = e.isBandit
        self.periods = isBandit ? periods.filter { $0.weights.count == e.weights.count }.sorted { $0.from < $1.from } : []
        banditRanges = isBandit ? Self.banditRanges(fileWeights: e.weights, periods: self.periods, stops: stops, coverage: e.coverage) : []
        banditPeriodTexts = isBandit ? Self.periodTexts(start: start, periods: self.periods) : []
    }

    /// The start, then each period's, as `allocation_period` carries them: RFC 3339 of the time
    /// rounded to the microsecond (as `Timestamp(date).rfc3339`).
    static func periodTexts(start: Date?, periods: [BanditPeriod]) -> [String?] {
        ([start] + periods.map(\.from)).map { date in
            date.map { RFC3339.format(microseconds: Int64(($0.timeIntervalSince1970 * 1_000_000).rounded())) }
        }
    }

    /// Per entry (the file's weights, then each period's), ranges from the weights with stopped
    /// arms at 0 (a stopped arm leaves the draw); when every arm is stopped the weights
    /// stay, and the stop check sends everyone to the control's paywall.
    static func banditRanges(fileWeights: [Double], periods: [BanditPeriod], stops: ArmStops, coverage: Double) -> [[Range<Double>]] {
        ([fileWeights] + periods.map(\.weights)).map { raw in
            var w = raw.enumerated().map { stops.isStopped($0.offset) ? 0 : max(0, $0.element) }
            if w.reduce(0, +) <= 0 { w = raw }
            let total = w.reduce(0, +)
            return ranges(normalisedWeights: w.map { $0 / total }, coverage: coverage)
        }
    }

    /// The index into `banditRanges` in force at `now`: the last period begun by then, else 0.
    @inline(__always)
    func banditEntry(at now: Date) -> Int {
        var i = periods.count
        while i > 0 && periods[i - 1].from > now { i -= 1 }
        return i
    }

    /// The start of the allocation period in force at `now` (the answer's `allocation_period`): the
    /// latest period begun by then, else the experiment's start; nil for other experiments.
    public func allocationPeriodStart(at now: Date) -> Date? {
        guard isBandit else { return nil }
        let i = banditEntry(at: now)
        return i > 0 ? periods[i - 1].from : start
    }

    /// `allocationPeriodStart(at:)` in RFC 3339, as the assign answer carries it.
    public func allocationPeriodText(at now: Date) -> String? {
        guard isBandit else { return nil }
        return banditPeriodTexts[banditEntry(at: now)]
    }

    static let fewForced = 8

    /// The variant `forced` gives this user, if any.
    @inline(__always)
    func forcedIndex(_ user: UserID) -> Int? {
        guard let few = forcedFew else { return forced[user] }
        for entry in few where entry.user == user { return entry.index }
        return nil
    }

    /// Whether the assigner reads the clock for this experiment.
    var needsClock: Bool { start != nil || end != nil || !stages.isEmpty }

    /// The bucket ranges in force at `now`: the rollout stage's (held at the stop while a
    /// safeguard stop is in force), else `ranges`.
    @inline(__always)
    func ranges(at now: Date) -> [Range<Double>] {
        if isBandit { return banditRanges[banditEntry(at: now)] }
        guard !stages.isEmpty else { return ranges }
        return stages[stageIndex(at: now)].ranges
    }

    /// GrowthBook's `chooseVariation` over `ranges(at: now)`: the variant whose range holds
    /// `bucket`, or -1. When those are `ranges` (no rollout, not a bandit) they are read in place,
    /// without a copy of the array per answer.
    @inline(__always)
    func chooseVariation(bucket: Double, at now: Date) -> Int {
        if stages.isEmpty && !isBandit { return variantIndex(bucket: bucket) }
        return Bucketing.chooseVariation(bucket, ranges: ranges(at: now))
    }

    /// The rollout stage in force at `now` (0 without a rollout).
    public func stageIndex(at now: Date) -> Int {
        let time = stops.holdStageAt.map { min($0, now) } ?? now
        for (i, stage) in stages.enumerated() {
            guard let end = stage.endsAt, time >= end else { return i }
        }
        return max(0, stages.count - 1)
    }

    /// Ranges laid end to end as GrowthBook does, without its "sum near 1" fallback: the
    /// weights here are already divided by their sum, so they are always valid.
    static func ranges(normalisedWeights w: [Double], coverage: Double) -> [Range<Double>] {
        let cover = coverage.isNaN ? 0 : min(max(coverage, 0), 1)
        var cumulative = 0.0
        return w.map { weight in
            let start = cumulative
            cumulative += weight
            return start..<(start + cover * weight)
        }
    }

    /// GrowthBook's `chooseVariation` over `ranges` (no rollout stage): the variant whose range
    /// holds `bucket`, or -1. Reads the ranges in place, so a hot loop retains nothing.
    @inlinable
    public func variantIndex(bucket: Double) -> Int {
        ranges.withUnsafeBufferPointer { ranges in
            for i in 0..<ranges.count where ranges[i].lowerBound <= bucket && bucket < ranges[i].upperBound { return i }
            return -1
        }
    }

    /// The user's hash in this experiment, in [0, 1).
    @inlinable @inline(__always)
    public func bucket(userID: String) -> Double {
        hashVersion == 2 ? Bucketing.hashV2(seedState: seedState, value: userID) : Bucketing.hashV1(value: userID, seed: seed)
    }
}

/// Why an experiment could not be prepared for assignment.
public enum AssignableExperimentError: Error, Equatable, CustomStringConvertible {
    case unknownHashVersion(id: String, Int)
    case noVariants(id: String)
    case badWeights(id: String)

    public var description: String {
        switch self {
        case let .unknownHashVersion(id, v): return "experiment '\(id)': unknown hash_version \(v) (expected 1 or 2)"
        case let .noVariants(id): return "experiment '\(id)': no variants"
        case let .badWeights(id): return "experiment '\(id)': variant weights must be positive numbers"
        }
    }
}
