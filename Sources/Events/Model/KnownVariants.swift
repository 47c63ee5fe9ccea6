/// The experiments exposures may name, and their variant keys.
///
/// Deliberately a plain value so the store does not depend on the experiment model;
/// callers build it from their definitions.
public struct KnownVariants: Sendable, Equatable {
    public var variants: [String: Set<String>]

    public init(_ variants: [String: Set<String>]) { self.variants = variants }
}
