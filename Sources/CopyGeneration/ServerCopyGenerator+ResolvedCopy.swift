import PaywallCopy

extension ServerCopyGenerator {
    /// The copy `request` gets from a server that generates: for a device with no on-device model,
    /// a recipe becomes a line written here (or the fallback with its reason); anything else,
    /// recipes for devices that have a model included, is returned as it is.
    public func copy(_ copy: ResolvedCopy, for request: PaywallRequest, experiment: String, variant: String) -> ResolvedCopy {
        guard !request.hasOnDeviceModel, case .recipe(let recipe) = copy else { return copy }
        let outcome = line(experiment: experiment, variant: variant, recipe: recipe, userName: request.userName)
        return .text(outcome.text, source: outcome.source, fallbackReason: outcome.fallbackReason)
    }
}
