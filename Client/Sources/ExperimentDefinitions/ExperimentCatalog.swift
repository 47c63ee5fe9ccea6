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

    /// Experiment id → its variant keys, for checking exposure events.
    public var variantKeys: [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: experiments.map { ($0.id, Set($0.variants.map(\.key))) })
    }
}
