extension ExperimentCatalog {
    /// The one message for an experiment id the folder does not have, wherever it was typed (a
    /// command's argument, a request's field): the nearest id, and every experiment there is.
    public func unknownExperimentMessage(_ id: String) -> String {
        Self.unknownExperimentMessage(id, known: experiments.map(\.id))
    }

    public static func unknownExperimentMessage(_ id: String, known: [String]) -> String {
        var message = "no experiment '\(id)' in the experiment folder"
        message += nearest(to: id, in: known).map { ". Did you mean '\($0)'?" } ?? "."
        message += known.isEmpty ? " It has no experiments." : " Experiments: \(known.sorted().joined(separator: ", "))."
        return message
    }

    /// The known id nearest to `id`: one that contains it (`trial-length` for `chorus-trial-length`),
    /// else the closest by edit distance when at most half of it differs; nil when nothing is near.
    public static func nearest(to id: String, in known: [String]) -> String? {
        let lowered = id.lowercased()
        if lowered.count >= 3, let containing = known.filter({ $0.contains(lowered) }).min(by: { $0.count < $1.count }) { return containing }
        var best: (id: String, distance: Int)? = nil
        for candidate in known.sorted() {
            let d = Spelling.distance(lowered, candidate)
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, max(lowered.count, best.id.count) / 2) else { return nil }
        return best.id
    }
}
