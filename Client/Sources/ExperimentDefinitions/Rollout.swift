import Foundation

/// `rollout`: from the experiment's `start`, coverage is multiplied by each stage's share for
/// that stage's hours; the last stage has no hours and lasts.
///
/// Shares only grow, so a user whose bucket fell inside at one stage is inside at every later
/// one: users once in stay in, sticky record or not.
public struct Rollout: Sendable, Equatable {
    public struct Stage: Sendable, Equatable {
        /// The fraction of `coverage` this stage lets in, in (0, 1].
        public var share: Double
        /// How long the stage lasts; nil for the last stage.
        public var hours: Double?

        public init(share: Double, hours: Double? = nil) {
            self.share = share
            self.hours = hours
        }
    }

    public var stages: [Stage]

    public init(stages: [Stage]) { self.stages = stages }

    /// Where the rollout stands at one moment.
    public struct Position: Sendable, Equatable {
        /// Index into `stages`.
        public var index: Int
        public var share: Double
        /// When this stage gives way to the next; nil for the last stage.
        public var endsAt: Date?
    }

    /// When each stage ends (nil for the last), laid end to end from `start`.
    public func stageEnds(start: Date) -> [Date?] {
        var t = start
        return stages.map { stage in
            guard let hours = stage.hours else { return nil }
            t = t.addingTimeInterval(hours * 3600)
            return t
        }
    }

    /// The stage in force at `time` for an experiment that started at `start` (the first stage
    /// before `start`).
    public func position(at time: Date, start: Date) -> Position {
        let ends = stageEnds(start: start)
        for (i, end) in ends.enumerated() {
            if let end, time >= end, i < stages.count - 1 { continue }
            return Position(index: i, share: stages[i].share, endsAt: end)
        }
        let last = stages.count - 1
        return Position(index: last, share: stages[last].share, endsAt: ends[last])
    }
}
