import Assignment
import Events
import ExperimentDefinitions
import Foundation
import GrowthBookPayload
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
    /// Each experiment as written in its file (less `$schema`), and the products: the static
    /// parts of `GET /v1/experiments` (`definitionsJSON(at:)` adds what changes with time).
    let definitions: [JSONValue]
    let productsJSON: JSONValue
    /// Each experiment's file as this load read it, by id (the console shows it as loaded).
    let sources: [String: [UInt8]]
    public let loadedAt: Date
    /// What `/v1/assign` writes for each experiment, in `assigner.experiments` order, rendered
    /// once here so a request copies bytes instead of resolving and writing them.
    let answers: [ExperimentAnswer]
    /// The experiments an assign body without `experiments` answers for: all but the holdouts
    /// (those answer in `holdouts`).
    let defaultIndices: [Int]
    /// What `/v1/assign` with `placement` writes, by placement id.
    let placementAnswers: [String: PlacementAnswer]
    /// `answers` and `placementAnswers` per storefront currency (`Products.storefrontCurrencies`,
    /// the default storefront's first, the same arrays as `answers` and `placementAnswers`): a
    /// request's country picks one, so a storefront costs a lookup, not a resolution.
    let answersByStorefront: [[ExperimentAnswer]]
    let placementAnswersByStorefront: [[String: PlacementAnswer]]
    /// Country → index into the `…ByStorefront` arrays; a country not here gets the default (0).
    let storefrontIndex: [String: Int]
    /// The body of `GET /api/features/{clientKey}`, built when first asked for.
    let features: FeaturesPayloadCache
    /// The safeguard stops in force when this snapshot was made, oldest first: the
    /// assigner and the GrowthBook payload honour them; `withStops` makes a snapshot with others.
    public let stops: [SafeguardStop]
    /// Every bandit's allocation periods when this snapshot was made: the assigner draws
    /// new users with the period's weights; `withPeriods` makes a snapshot with others.
    public let periods: [AllocationPeriod]

    public init(catalog: ExperimentDefinitions.ExperimentCatalog, sticky: (any StickyLookup)?, loadedAt: Date = Date()) throws {
        self.catalog = catalog
        self.loadedAt = loadedAt
        self.stops = []
        self.periods = []
        var byID: [String: Experiment] = [:]
        for e in catalog.experiments { byID[e.id] = e }
        self.experimentsByID = byID
        let assigner = try Assigner(catalog: catalog, sticky: sticky)
        self.assigner = assigner
        self.eventParser = EventParser(catalog: .init(catalog.variantKeys), currency: catalog.products.converter, fees: catalog.products.stores)
        var sources: [String: [UInt8]] = [:]
        for e in catalog.experiments { sources[e.id] = FileManager.default.contents(atPath: e.sourcePath).map { [UInt8]($0) } }
        self.sources = sources
        (self.definitions, self.productsJSON) = Self.renderDefinitions(catalog, sources: sources)
        self.features = FeaturesPayloadCache(catalog: catalog)
        let products = catalog.products
        let currencies = products.storefrontCurrencies
        self.answersByStorefront = currencies.map { currency in
            assigner.experiments.map { assignable in
                ExperimentAnswer(assignable.id, variants: byID[assignable.id]?.variants ?? [], products: products, currency: currency)
            }
        }
        self.answers = answersByStorefront[0]
        self.defaultIndices = assigner.experiments.indices.filter { !assigner.experiments[$0].isHoldout }
        self.placementAnswersByStorefront = currencies.map { currency in
            var placementAnswers: [String: PlacementAnswer] = [:]
            for p in assigner.placements { placementAnswers[p.id] = PlacementAnswer(p, products: products, currency: currency) }
            return placementAnswers
        }
        self.placementAnswers = placementAnswersByStorefront[0]
        var storefrontIndex: [String: Int] = [:]
        for (country, currency) in products.storefronts where currency != products.currency {
            storefrontIndex[country] = currencies.firstIndex(of: currency)
        }
        self.storefrontIndex = storefrontIndex
    }

    /// The same experiments with `stops` in force: a new assigner and a new GrowthBook payload
    /// cache; everything rendered from the files is shared.
    private init(copying s: ExperimentSnapshot, stops: [SafeguardStop], periods: [AllocationPeriod]) {
        catalog = s.catalog; experimentsByID = s.experimentsByID; eventParser = s.eventParser
        definitions = s.definitions; productsJSON = s.productsJSON; loadedAt = s.loadedAt; sources = s.sources
        answers = s.answers; defaultIndices = s.defaultIndices; placementAnswers = s.placementAnswers
        answersByStorefront = s.answersByStorefront; placementAnswersByStorefront = s.placementAnswersByStorefront
        storefrontIndex = s.storefrontIndex
        self.stops = stops
        self.periods = periods
        let byExperiment = SafeguardStopsInForce(stops, catalog: s.catalog)
        assigner = s.assigner.withStops(byExperiment.armStops).withPeriods(Self.banditPeriods(periods, catalog: s.catalog))
        features = FeaturesPayloadCache(catalog: s.catalog, stops: byExperiment.payloadStops)
    }

    /// The storefront of a request: its `country` attribute's (`Products.storefrontKey`), else the default (0).
    @inline(__always)
    func storefront(_ attributes: Attributes) -> Int {
        if storefrontIndex.isEmpty { return 0 }
        guard case .string(let country)? = attributes["country"], let key = Products.storefrontKey(country) else { return 0 }
        return storefrontIndex[key] ?? 0
    }

    /// This snapshot with `stops` (the stops in force, oldest first) instead of its own.
    public func withStops(_ stops: [SafeguardStop]) -> ExperimentSnapshot {
        ExperimentSnapshot(copying: self, stops: stops, periods: periods)
    }

    /// This snapshot with `periods` (every bandit's, from the store) instead of its own.
    public func withPeriods(_ periods: [AllocationPeriod]) -> ExperimentSnapshot {
        ExperimentSnapshot(copying: self, stops: stops, periods: periods)
    }

    /// Each bandit's periods as the assigner applies them: weights in the file's variant order
    /// (a period recorded for other variants is left out: the file changed under it).
    static func banditPeriods(_ periods: [AllocationPeriod], catalog: ExperimentDefinitions.ExperimentCatalog) -> [String: [BanditPeriod]] {
        var out: [String: [BanditPeriod]] = [:]
        for e in catalog.experiments where e.isBandit {
            let keys = e.variants.map(\.key)
            out[e.id] = periods.filter { $0.experiment == e.id && $0.weights.map(\.variant) == keys }
                .map { BanditPeriod(from: $0.from.date, weights: $0.weights.map(\.weight)) }
        }
        return out
    }

    /// The body of `GET /v1/experiments` at `now`: `{"experiments": [file contents…], "products":
    /// {…}}`, each definition as written in its file (less `$schema`), so clients see exactly what
    /// is deployed, plus `rollout_stage` for an experiment with a rollout and `safeguard_stops`
    /// (the stops in force) for one with safeguards.
    public func definitionsJSON(at now: Date = Date()) -> String {
        var experiments: [JSONValue] = []
        for (definition, assignable) in zip(definitions, assigner.experiments) {
            guard case .object(var members) = definition, let model = assignable.model else {
                experiments.append(definition)
                continue
            }
            if model.safeguards != nil {
                members.append(("safeguard_stops", .array(stops.filter { $0.experiment == model.id }.map(\.json))))
            }
            guard let rollout = model.rollout, let start = model.start else {
                experiments.append(.object(members))
                continue
            }
            let index = assignable.stageIndex(at: now)
            let stage = rollout.stages[index]
            let end = rollout.stageEnds(start: start)[index]
            members.append(("rollout_stage", .object([
                ("index", .number(Double(index))), ("share", .number(stage.share)),
                ("coverage", .number(model.coverage * stage.share)),
                ("until", end.map { .string(RFC3339.format($0)) } ?? .null),
                ("held", .bool(assignable.stops.holdStageAt != nil)),
            ])))
            experiments.append(.object(members))
        }
        return JSONValue.object([("experiments", .array(experiments)), ("products", productsJSON)]).serialized()
    }

    static func renderDefinitions(_ catalog: ExperimentDefinitions.ExperimentCatalog, sources: [String: [UInt8]]) -> ([JSONValue], JSONValue) {
        var experiments: [JSONValue] = []
        for e in catalog.experiments {
            if let bytes = sources[e.id], let node = try? JSONReader.parse(bytes),
               case .object(let members) = node.value {
                experiments.append(.object(members.filter { $0.0 != "$schema" }))
            } else {
                experiments.append(.object([("id", .string(e.id)), ("name", .string(e.name)), ("status", .string(e.status.rawValue))]))
            }
        }
        var offerings: [(String, JSONValue)] = []
        for (name, plans) in catalog.products.offerings.sorted(by: { $0.key < $1.key }) {
            let rendered: [(String, JSONValue)] = plans.sorted { $0.key < $1.key }.map { plan in
                var members: [(String, JSONValue)] = [("product_id", .string(plan.value.productID)), ("price", .number(plan.value.price)), ("period", .string(plan.value.period))]
                // Storefront prices, when the file has them.
                if !plan.value.prices.isEmpty {
                    members.append(("prices", .object(plan.value.prices.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })))
                }
                return (plan.key, .object(members))
            }
            offerings.append((name, .object([("plans", .object(rendered))])))
        }
        let rates: [(String, JSONValue)] = catalog.products.exchangeRates.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) }
        var productMembers: [(String, JSONValue)] = [("currency", .string(catalog.products.currency)), ("offerings", .object(offerings)),
                                                      ("exchange_rates", .object(rates))]
        if !catalog.products.storefronts.isEmpty {
            productMembers.append(("storefronts", .object(catalog.products.storefronts.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        let products: JSONValue = .object(productMembers)
        return (experiments, products)
    }
}

/// One experiment's part of a `/v1/assign` answer, as bytes.
struct ExperimentAnswer: Sendable {
    /// A class: the handler takes one reference per answer instead of copying seven fields.
    final class VariantAnswer: Sendable {
        /// `"key"`.
        let key: [UInt8]
        let variantKey: String
        let copy: CopySpec
        /// The paywall object when its copy does not depend on the request (static text).
        let fixedPaywall: [UInt8]?
        /// The paywall with holes for a filled template's text, or for an AI recipe's brief and prompt.
        let textTemplate: ByteTemplate?
        let recipeTemplate: ByteTemplate?
        /// The paywall object up to its copy, which comes last (`{"offering":…,"copy":`), for any
        /// other copy (an AI arm's fallback, a line the server wrote).
        let paywallHead: [UInt8]

        init(key: [UInt8], variantKey: String, copy: CopySpec, fixedPaywall: [UInt8]?, textTemplate: ByteTemplate?,
             recipeTemplate: ByteTemplate?, paywallHead: [UInt8]) {
            self.key = key
            self.variantKey = variantKey
            self.copy = copy
            self.fixedPaywall = fixedPaywall
            self.textTemplate = textTemplate
            self.recipeTemplate = recipeTemplate
            self.paywallHead = paywallHead
        }

        /// Whether this arm shows a paywall (false: `"paywall": null`).
        var showsPaywall: Bool { paywallHead.isEmpty == false }

        /// An arm's part of the answer, rendered once: `paywall` nil writes `null`.
        static func make(key variantKey: String, paywall: Paywall?, products: Products, currency: String? = nil) -> VariantAnswer {
            var key: [UInt8] = []
            JSONWriter.writeString(variantKey, to: &key)
            guard let paywall else {
                return VariantAnswer(key: key, variantKey: variantKey, copy: .staticText(""), fixedPaywall: Array("null".utf8),
                                     textTemplate: nil, recipeTemplate: nil, paywallHead: [])
            }
            var resolved = PaywallResolver.resolve(paywall, products: products, request: PaywallRequest(), currency: currency)
            var paywallHead = JSONWriter.bytes(.object(resolved.membersBeforeCopy))
            paywallHead.removeLast()   // '}'
            paywallHead.append(literal: #","copy":"#)
            var fixed: [UInt8]?
            var text: ByteTemplate?
            var recipe: ByteTemplate?
            switch paywall.copy {
            case .staticText:
                fixed = JSONWriter.bytes(resolved.json)
            case .customVariable:
                resolved.copy = .text(ByteTemplate.hole(0), source: .template, fallbackReason: nil)
                text = ByteTemplate(resolved.json, holes: 1)
            case .aiGenerated(let spec):
                resolved.copy = .recipe(CopyRecipe(spec, brief: ByteTemplate.hole(0), prompt: ByteTemplate.hole(1)))
                recipe = ByteTemplate(resolved.json, holes: 2)
            }
            return VariantAnswer(key: key, variantKey: variantKey, copy: paywall.copy, fixedPaywall: fixed,
                                 textTemplate: text, recipeTemplate: recipe, paywallHead: paywallHead)
        }

        /// The paywall object with `copy` (resolved for the request) as its copy.
        func writePaywall<Out: ByteSink & ~Copyable>(copy: ResolvedCopy, to out: inout Out) {
            switch copy {
            case .text(let text, .template, nil) where textTemplate != nil:
                textTemplate!.write(text, to: &out)
            case .recipe(let recipe) where recipeTemplate != nil:
                recipeTemplate!.write(recipe.brief, recipe.prompt, to: &out)
            default:
                out.append(bytes: paywallHead)
                JSONWriter.write(copy.json, to: &out)
                out.append(0x7D)
            }
        }
    }

    /// `{"experiment":"id","variant":`.
    let head: [UInt8]
    let variants: [VariantAnswer]

    /// `currency`: the storefront's; nil for the default storefront.
    init(_ id: String, variants: [Variant], products: Products, currency: String? = nil) {
        var head: [UInt8] = []
        head.append(literal: #"{"experiment":"#)
        JSONWriter.writeString(id, to: &head)
        head.append(literal: #","variant":"#)
        self.head = head
        self.variants = variants.map { VariantAnswer.make(key: $0.key, paywall: $0.paywall, products: products, currency: currency) }
    }
}

/// One placement's parts of a `/v1/assign` answer, as bytes.
struct PlacementAnswer: Sendable {
    struct AudienceAnswer: Sendable {
        /// `,"audience":"name"`.
        let audience: [UInt8]
        /// `,"experiment":"id"` or `,"experiment":null`.
        let experiment: [UInt8]
        /// The fixed paywall of an audience without an experiment.
        let paywall: ExperimentAnswer.VariantAnswer?
    }

    /// `{"user_id":` is written first; then `,"placement":"id"`.
    let placement: [UInt8]
    let audiences: [AudienceAnswer]
    let defaultPaywall: ExperimentAnswer.VariantAnswer

    init(_ p: AssignablePlacement, products: Products, currency: String? = nil) {
        var head: [UInt8] = []
        head.append(literal: #","placement":"#)
        JSONWriter.writeString(p.id, to: &head)
        placement = head
        defaultPaywall = .make(key: "default", paywall: p.model?.defaultPaywall, products: products, currency: currency)
        audiences = (p.model?.audiences ?? []).map { a in
            var audience: [UInt8] = []
            audience.append(literal: #","audience":"#)
            JSONWriter.writeString(a.name, to: &audience)
            var experiment: [UInt8] = []
            experiment.append(literal: #","experiment":"#)
            var paywall: ExperimentAnswer.VariantAnswer?
            switch a.shows {
            case .experiment(let id): JSONWriter.writeString(id, to: &experiment)
            case .paywall(let fixed):
                experiment.append(literal: "null")
                paywall = .make(key: a.name, paywall: fixed, products: products, currency: currency)
            }
            return AudienceAnswer(audience: audience, experiment: experiment, paywall: paywall)
        }
    }
}

/// JSON bytes with holes for strings, made by writing a value with marker strings in their
/// places and cutting at the markers: filling the holes gives exactly what `JSONWriter` would
/// write for the value with those strings.
struct ByteTemplate: Sendable {
    /// One more than there are holes.
    let chunks: [[UInt8]]

    /// The marker for hole `n`; U+0000 never appears unescaped, so the written marker is unique.
    static func hole(_ n: Int) -> String { "\u{0}abctl-hole-\(n)\u{0}" }

    /// nil unless each marker appears exactly once, in order.
    init?(_ value: JSONValue, holes: Int) {
        let bytes = JSONWriter.bytes(value)
        var chunks: [[UInt8]] = []
        var rest = bytes[...]
        for n in 0..<holes {
            var marker: [UInt8] = []
            JSONWriter.writeString(Self.hole(n), to: &marker)
            guard let range = rest.firstRange(of: marker) else { return nil }
            chunks.append(Array(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
            guard rest.firstRange(of: marker) == nil else { return nil }
        }
        chunks.append(Array(rest))
        self.chunks = chunks
    }

    func write<Out: ByteSink & ~Copyable>(_ first: String, to out: inout Out) {
        out.append(bytes: chunks[0])
        JSONWriter.writeString(first, to: &out)
        out.append(bytes: chunks[1])
    }

    func write<Out: ByteSink & ~Copyable>(_ first: String, _ second: String, to out: inout Out) {
        out.append(bytes: chunks[0])
        JSONWriter.writeString(first, to: &out)
        out.append(bytes: chunks[1])
        JSONWriter.writeString(second, to: &out)
        out.append(bytes: chunks[2])
    }
}

/// The current snapshot, swapped whole on reload: a request sees either the old one or the new one.
public final class SnapshotHolder: Sendable {
    private let current: Mutex<ExperimentSnapshot>

    public init(_ snapshot: ExperimentSnapshot) { current = Mutex(snapshot) }

    public var snapshot: ExperimentSnapshot { current.withLock { $0 } }

    public func replace(_ snapshot: ExperimentSnapshot) { current.withLock { $0 = snapshot } }

    /// Serialises the writers (a reload, the safeguard poller) so that neither undoes the other;
    /// readers only take `current` for the moment of a swap.
    private let writers = Mutex<Void>(())

    /// Replaces the snapshot with what `change` makes of it (nil: keeps it), one writer at a time.
    @discardableResult
    public func update(_ change: (ExperimentSnapshot) throws -> ExperimentSnapshot?) rethrows -> ExperimentSnapshot {
        try writers.withLock { _ in
            let old = snapshot
            guard let new = try change(old) else { return old }
            replace(new)
            return new
        }
    }
}

/// The stops in force as the assigner and the GrowthBook payload take them, per experiment.
struct SafeguardStopsInForce {
    var armStops: [String: ArmStops] = [:]
    var payloadStops: [String: GrowthBookPayload.Safeguarded] = [:]

    /// `stop_experiment` stops every arm (control included: nobody is in the experiment any
    /// more, everyone gets the control's paywall); the rollout holds at the first stop.
    init(_ stops: [SafeguardStop], catalog: ExperimentDefinitions.ExperimentCatalog) {
        for e in catalog.experiments {
            let mine = stops.filter { $0.experiment == e.id && $0.inForce }
            guard !mine.isEmpty else { continue }
            let keys = e.variants.map(\.key)
            let all = mine.contains { $0.action == .stopExperiment }
            let stopped = keys.map { key in all || mine.contains { $0.arm == key } }
            let hold = mine.map(\.stoppedAt.date).min()
            armStops[e.id] = ArmStops(stoppedArms: stopped, holdStageAt: hold)
            payloadStops[e.id] = GrowthBookPayload.Safeguarded(stoppedArms: Set(zip(keys, stopped).filter(\.1).map(\.0)), holdStageAt: hold)
        }
    }
}
