import ExperimentDefinitions

/// The experiments that keep a person out of another one of their namespace.
///
/// Ranges keep one id out of two experiments of a namespace, but a person may hold several ids
/// (an anonymous one, then an account): a person already exposed to another `running` or `paused`
/// experiment of the same namespace, whose range does not overlap this one's, is left out of
/// this one (`namespace`). Overlapping experiments may share users by design.
public enum NamespaceRivals {
    /// Per experiment of `experiments`, in order, the ids of its rivals; empty for an experiment
    /// without a namespace, with none, or a holdout.
    public static func of(_ experiments: [AssignableExperiment]) -> [[String]] {
        experiments.map { e in
            guard let ns = e.namespace, !e.isHoldout else { return [] }
            return experiments.compactMap { other in
                guard other !== e, other.id != e.id, !other.isHoldout, other.status == .running || other.status == .paused,
                      let theirs = other.namespace, theirs.id == ns.id, !theirs.overlaps(ns) else { return nil }
                return other.id
            }
        }
    }
}
