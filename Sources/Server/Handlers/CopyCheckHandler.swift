import ExperimentDefinitions
import HTTPTransport

/// `POST /v1/copy/check`.
struct CopyCheckHandler: Responder {
    let snapshots: SnapshotHolder

    /// `POST /v1/copy/check`: runs a variant's guard on a line and lists every broken rule.
    ///
    /// Body `{"experiment", "variant", "text", "user_name"?}`; answers 200 with the verdict
    /// whether or not the line passes.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let body = try JSONBody(request.body)
        try body.only(["experiment", "variant", "text", "user_name"])
        let experimentID = try body.string("experiment")
        let variantKey = try body.string("variant")
        guard let textValue = body["text"], textValue != .null else { throw APIError.badRequest("missing_field", "'text' is required", field: "text") }
        guard case .string(let text) = textValue else { throw JSONBody.wrongType("text", "a string", textValue) }
        let userName = try body.optionalString("user_name")

        let catalog = snapshots.snapshot.catalog
        guard let experiment = catalog.experiment(experimentID) else {
            throw APIError(.notFound, code: "experiment_not_found", catalog.unknownExperimentMessage(experimentID), field: "experiment")
        }
        guard let variant = experiment.variant(variantKey) else {
            throw APIError(.notFound, code: "variant_not_found",
                           "experiment '\(experimentID)' has no variant '\(variantKey)'; its variants: \(experiment.variants.map(\.key).joined(separator: ", "))",
                           field: "variant")
        }
        guard case .aiGenerated(let recipe)? = variant.paywall?.copy else {
            throw APIError.badRequest("no_guard", "variant '\(variantKey)' uses \(variant.paywall.map { "\($0.copy.strategyName) copy" } ?? "no paywall"), which has no guard; only ai_generated variants do", field: "variant")
        }
        let verdict = recipe.guardRules.check(text, userName: userName)
        let violations: [JSONValue] = verdict.violations.map { .object([("rule", .string($0.rule)), ("message", .string($0.message))]) }
        return .response(.json(.object([
            ("experiment", .string(experimentID)),
            ("variant", .string(variantKey)),
            ("text", .string(verdict.text)),
            ("accepted", .bool(verdict.accepted)),
            ("violations", .array(violations)),
        ])))
    }
}
