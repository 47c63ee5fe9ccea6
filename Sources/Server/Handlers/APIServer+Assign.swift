import Assignment
import ExperimentDefinitions
import PaywallCopy

extension APIServer {
    /// `POST /v1/assign`: body `{"user_id", "attributes"?, "variables"?, "signals"?, "experiments"?}`.
    ///
    /// One answer per experiment in folder order (or per listed id, in the order given), each with
    /// the variant's paywall resolved for this request: discount text, copy text or an AI recipe.
    func assign(_ request: HTTPRequest) throws -> HandlerOutcome {
        let body = try JSONBody(request.body)
        try body.only(["user_id", "attributes", "variables", "signals", "experiments"])
        let userID = try body.string("user_id")
        let attributes = try body.object("attributes")
        var variables: [String: String] = [:]
        for (name, value) in try body.object("variables") {
            guard case .string(let text) = value else { throw JSONBody.wrongType("variables.\(name)", "a string", value) }
            variables[name] = text
        }
        let signals = try body.object("signals")
        let only = try body.optionalStringArray("experiments")

        let snapshot = snapshots.snapshot
        let assignments: [Assignment]
        if let only {
            assignments = try only.map { id throws(APIError) in
                guard let a = snapshot.assigner.assign(userID: userID, attributes: attributes, experimentID: id) else {
                    throw APIError.badRequest("unknown_experiment", "no experiment '\(id)'", field: "experiments")
                }
                return a
            }
        } else {
            assignments = snapshot.assigner.assign(userID: userID, attributes: attributes)
        }

        let paywallRequest = PaywallRequest(variables: variables, signals: signals)
        var answers: [JSONValue] = []
        answers.reserveCapacity(assignments.count)
        for a in assignments {
            var paywall: JSONValue = .null
            if let i = a.variantIndex, let experiment = snapshot.experimentsByID[a.experimentID], i < experiment.variants.count {
                paywall = PaywallResolver.resolve(experiment.variants[i].paywall, products: snapshot.catalog.products, request: paywallRequest).json
            }
            answers.append(.object([
                ("experiment", .string(a.experimentID)),
                ("variant", a.variantKey.map(JSONValue.string) ?? .null),
                ("in_experiment", .bool(a.inExperiment)),
                ("bucket", .number(a.bucket)),
                ("reason", .string(a.reason.rawValue)),
                ("paywall", paywall),
            ]))
        }
        return .response(.json(.object([("user_id", .string(userID)), ("assignments", .array(answers))])))
    }
}
