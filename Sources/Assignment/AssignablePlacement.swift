import ExperimentDefinitions
import Foundation

/// A placement as the `Assigner` needs it: audience conditions compiled, experiments by index.
public final class AssignablePlacement: Sendable {
    public struct Audience: Sendable {
        public let name: String
        /// nil: everyone.
        public let condition: Condition?
        /// The experiment's index in the assigner's `experiments`, when the audience names one.
        public let experimentIndex: Int?
    }

    public let id: String
    public let audiences: [Audience]
    /// The loaded placement (paywalls), when built from one.
    public let model: Placement?

    public init(id: String, audiences: [Audience], model: Placement? = nil) {
        self.id = id
        self.audiences = audiences
        self.model = model
    }

    /// - Throws: `AssignablePlacementError` when an audience names an experiment not in `experimentIndex`.
    public convenience init(_ p: Placement, experimentIndex: [String: Int], savedGroups: [String: [JSONValue]] = [:]) throws {
        let audiences = try p.audiences.map { a in
            var index: Int? = nil
            if let id = a.experimentID {
                guard let i = experimentIndex[id] else { throw AssignablePlacementError.unknownExperiment(placement: p.id, id) }
                index = i
            }
            return Audience(name: a.name, condition: try a.condition.map { try Condition($0, savedGroups: savedGroups) }, experimentIndex: index)
        }
        self.init(id: p.id, audiences: audiences, model: p)
    }

    /// The first audience whose condition matches the attributes; nil when none does.
    @inline(__always)
    public func audienceIndex(attributes: Attributes) -> Int? {
        for (i, a) in audiences.enumerated() where a.condition?.matches(attributes) ?? true { return i }
        return nil
    }
}

public enum AssignablePlacementError: Error, Equatable, CustomStringConvertible {
    case unknownExperiment(placement: String, String)

    public var description: String {
        switch self {
        case let .unknownExperiment(placement, id): "placement '\(placement)': no experiment '\(id)'"
        }
    }
}

/// What one placement shows one user (`placements.json`; `/v1/assign` with `placement`).
public struct PlacementAssignment: Sendable {
    /// Which paywall the answer carries.
    public enum Shows: Sendable, Equatable {
        /// The variant `index` of the audience's experiment (assigned, sticky, forced, or the shipped winner).
        case variant(Int)
        /// The audience's fixed paywall (which may be none).
        case audience
        /// The placement's default (which may be none).
        case placementDefault
    }

    public let placement: AssignablePlacement
    /// The audience that decided; nil when none matched.
    public let audienceIndex: Int?
    /// The audience's experiment's answer, when the audience names one.
    public let assignment: Assignment?
    public let shows: Shows
    /// The experiment's reason when an experiment decided, `audience` for a fixed paywall or none,
    /// `default` when no audience matched.
    public let reason: String

    public init(placement: AssignablePlacement, audienceIndex: Int?, assignment: Assignment?) {
        self.placement = placement
        self.audienceIndex = audienceIndex
        self.assignment = assignment
        if let assignment {
            reason = assignment.reason.rawValue
            switch assignment.reason {
            case .assigned, .sticky, .forced, .shipped, .safeguard:
                // A safeguard stop shows the control's paywall.
                shows = assignment.paywallVariantIndex.map(Shows.variant) ?? .placementDefault
            default:
                // Not taken (dates, status, targeting, namespace, coverage, a holdout): the default.
                shows = .placementDefault
            }
        } else if audienceIndex != nil {
            reason = "audience"
            shows = .audience
        } else {
            reason = "default"
            shows = .placementDefault
        }
    }

    public var audience: AssignablePlacement.Audience? { audienceIndex.map { placement.audiences[$0] } }

    /// The paywall shown, from the loaded models; nil: no paywall.
    public var paywall: Paywall? {
        switch shows {
        case .variant(let i): assignment?.experiment.model?.variants[i].paywall
        case .audience:
            audienceIndex.flatMap { i -> Paywall? in
                guard case .paywall(let p)? = placement.model?.audiences[i].shows else { return nil }
                return p
            }
        case .placementDefault: placement.model?.defaultPaywall
        }
    }
}

extension Assigner {
    /// The answer for one placement: the first matching audience decides; its experiment is
    /// assigned as usual (with the sticky record); nil when no placement has this id.
    /// `time`: when the checks are made (dates, rollout stages, holdouts); the clock's now when nil.
    /// The simulator passes each user's arrival.
    public func assign(userID: UserID, attributes: Attributes = [:], placement id: String, at time: Date? = nil) -> PlacementAssignment? {
        guard let p = placement(id) else { return nil }
        let audience = p.audienceIndex(attributes: attributes)
        let assignment = audience.flatMap { p.audiences[$0].experimentIndex }.map {
            assign(userID: userID, attributes: attributes, experimentsAt: [$0], at: time)[0]
        }
        return PlacementAssignment(placement: p, audienceIndex: audience, assignment: assignment)
    }
}
