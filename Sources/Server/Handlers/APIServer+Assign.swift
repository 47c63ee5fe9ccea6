import Assignment
import ExperimentDefinitions
import PaywallCopy

extension APIServer {
    static let assignFields: Set<String> = ["user_id", "attributes", "variables", "signals", "experiments", "on_device_model"]

    /// `POST /v1/assign`: body `{"user_id", "attributes"?, "variables"?, "signals"?, "experiments"?, "on_device_model"?}`.
    ///
    /// One answer per experiment in folder order (or per listed id, in the order given), each with
    /// the variant's paywall resolved for this request: discount text, copy text or an AI recipe.
    /// With `"on_device_model": false` and `--llm-url`, the server writes the AI line itself.
    func assign(_ request: HTTPRequest) throws -> HandlerOutcome {
        let body = try JSONBody(request.body)
        try body.only(Self.assignFields)
        let userID = try body.string("user_id")
        let attributes = try body.object("attributes")
        var variables: [String: String] = [:]
        for (name, value) in try body.object("variables") {
            guard case .string(let text) = value else { throw JSONBody.wrongType("variables.\(name)", "a string", value) }
            variables[name] = text
        }
        let signals = try body.object("signals")
        let only = try body.optionalStringArray("experiments")
        let hasOnDeviceModel = try body.optionalBool("on_device_model") ?? true

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

        // Written straight to bytes: this is the hottest path of the server.
        let paywallRequest = PaywallRequest(variables: variables, signals: signals, hasOnDeviceModel: hasOnDeviceModel)
        var out: [UInt8] = []
        out.reserveCapacity(256 + 512 * assignments.count)
        out.append(contentsOf: #"{"user_id":"#.utf8)
        JSONWriter.writeString(userID, to: &out)
        out.append(contentsOf: #","assignments":["#.utf8)
        for (n, a) in assignments.enumerated() {
            if n > 0 { out.append(0x2C) }
            out.append(contentsOf: #"{"experiment":"#.utf8)
            JSONWriter.writeString(a.experimentID, to: &out)
            out.append(contentsOf: #","variant":"#.utf8)
            if let key = a.variantKey { JSONWriter.writeString(key, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: (a.inExperiment ? #","in_experiment":true,"bucket":"# : #","in_experiment":false,"bucket":"#).utf8)
            JSONWriter.writeNumber(a.bucket, to: &out)
            out.append(contentsOf: #","reason":"#.utf8)
            JSONWriter.writeString(a.reason.rawValue, to: &out)
            out.append(contentsOf: #","paywall":"#.utf8)
            if let i = a.variantIndex, let experiment = snapshot.experimentsByID[a.experimentID], i < experiment.variants.count {
                if let fixed = snapshot.fixedPaywalls[a.experimentID]?[i] {
                    out.append(contentsOf: fixed)
                } else {
                    var paywall = PaywallResolver.resolve(experiment.variants[i].paywall, products: snapshot.catalog.products, request: paywallRequest)
                    if let copyGenerator {
                        paywall.copy = copyGenerator.copy(paywall.copy, for: paywallRequest, experiment: a.experimentID,
                                                          variant: experiment.variants[i].key)
                    }
                    JSONWriter.write(paywall.json, to: &out)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(0x7D)
        }
        out.append(contentsOf: "]}".utf8)
        return .response(HTTPResponse(status: 200, body: out))
    }
}
