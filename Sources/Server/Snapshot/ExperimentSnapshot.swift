import Assignment
import EventStore
import ExperimentDefinitions
import Foundation
import PaywallCopy
import Synchronization

/// Everything the handlers read about the experiments, built once per (re)load and never changed.
public final class ExperimentSnapshot: Sendable {
    public let catalog: ExperimentDefinitions.ExperimentCatalog
    /// Experiments by id, for resolving paywalls.
    public let experimentsByID: [String: Experiment]
    /// Assignment over this snapshot, with the store's sticky lookup.
    public let assigner: Assigner
    /// Checks events against this snapshot (exposures must name a known experiment and variant).
    public let eventParser: EventParser
    /// The body of `GET /v1/experiments`, rendered at load time.
    public let definitionsJSON: String
    public let loadedAt: Date
    /// Per experiment, per variant: the resolved paywall as JSON bytes when it does not depend on
    /// the request (static copy), so `/v1/assign` copies bytes instead of resolving and writing.
    let fixedPaywalls: [String: [[UInt8]?]]

    public init(catalog: ExperimentDefinitions.ExperimentCatalog, sticky: (any StickyLookup)?, loadedAt: Date = Date()) throws {
        self.catalog = catalog
        self.loadedAt = loadedAt
        var byID: [String: Experiment] = [:]
        for e in catalog.experiments { byID[e.id] = e }
        self.experimentsByID = byID
        self.assigner = try Assigner(catalog: catalog, sticky: sticky)
        self.eventParser = EventParser(catalog: .init(catalog.variantKeys))
        self.definitionsJSON = Self.renderDefinitions(catalog)
        var fixed: [String: [[UInt8]?]] = [:]
        for e in catalog.experiments {
            fixed[e.id] = e.variants.map { variant in
                guard case .staticText = variant.paywall.copy else { return nil }
                return JSONWriter.bytes(PaywallResolver.resolve(variant.paywall, products: catalog.products, request: PaywallRequest()).json)
            }
        }
        self.fixedPaywalls = fixed
    }

    /// `{"experiments": [file contents…], "products": {…}}`: each definition as written in its
    /// file (less `$schema`), so clients see exactly what is deployed.
    static func renderDefinitions(_ catalog: ExperimentDefinitions.ExperimentCatalog) -> String {
        var experiments: [JSONValue] = []
        for e in catalog.experiments {
            if let data = FileManager.default.contents(atPath: e.sourcePath), let node = try? JSONReader.parse([UInt8](data)),
               case .object(let members) = node.value {
                experiments.append(.object(members.filter { $0.0 != "$schema" }))
            } else {
                experiments.append(.object([("id", .string(e.id)), ("name", .string(e.name)), ("status", .string(e.status.rawValue))]))
            }
        }
        var offerings: [(String, JSONValue)] = []
        for (name, plans) in catalog.products.offerings.sorted(by: { $0.key < $1.key }) {
            let rendered: [(String, JSONValue)] = plans.sorted { $0.key < $1.key }.map { plan in
                (plan.key, .object([("product_id", .string(plan.value.productID)), ("price", .number(plan.value.price)), ("period", .string(plan.value.period))]))
            }
            offerings.append((name, .object([("plans", .object(rendered))])))
        }
        let products: JSONValue = .object([("currency", .string(catalog.products.currency)), ("offerings", .object(offerings))])
        return JSONValue.object([("experiments", .array(experiments)), ("products", products)]).serialized()
    }
}

/// The current snapshot, swapped whole on reload: a request sees either the old one or the new one.
public final class SnapshotHolder: Sendable {
    private let current: Mutex<ExperimentSnapshot>

    public init(_ snapshot: ExperimentSnapshot) { current = Mutex(snapshot) }

    public var snapshot: ExperimentSnapshot { current.withLock { $0 } }

    public func replace(_ snapshot: ExperimentSnapshot) { current.withLock { $0 = snapshot } }
}
