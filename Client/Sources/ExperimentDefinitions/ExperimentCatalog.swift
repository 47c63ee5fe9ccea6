/// A validated folder of experiments and its price table: the immutable snapshot the engine runs on.
public struct ExperimentCatalog: Sendable {
    public var experiments: [Experiment]
    public var products: Products
    /// `placements.json`, in file order (empty when the folder has none).
    public var placements: [Placement]

    public init(experiments: [Experiment], products: Products, placements: [Placement] = []) {
        self.experiments = experiments
        self.products = products
        self.placements = placements
    }

    public func placement(_ id: String) -> Placement? { placements.first { $0.id == id } }

    public func experiment(_ id: String) -> Experiment? { experiments.first { $0.id == id } }

    /// The other experiments of `experiment`'s namespace whose ranges do not overlap its own, in
    /// folder order, whatever their status: a person exposed to one of them and to this one was
    /// meant to see only one (two of its ids exposed before they were linked), which its report
    /// counts. Empty without a namespace.
    public func namespaceNeighbours(of experiment: Experiment) -> [String] {
        guard let ns = experiment.namespace, !experiment.isHoldout else { return [] }
        return experiments.compactMap { other in
            guard other.id != experiment.id, !other.isHoldout, let theirs = other.namespace, theirs.id == ns.id, !theirs.overlaps(ns) else { return nil }
            return other.id
        }
    }

    /// Experiment id → its variant keys, for checking exposure events.
    public var variantKeys: [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: experiments.map { ($0.id, Set($0.variants.map(\.key))) })
    }
}
