import Assignment
import ExperimentDefinitions
import PaywallCopy

extension APIServer {
    /// `POST /v1/assign`: body `{"user_id", "attributes"?, "variables"?, "signals"?, "experiments"?, "on_device_model"?}`.
    ///
    /// One answer per experiment in folder order (or per listed id, in the order given), each with
    /// the variant's paywall resolved for this request: discount text, copy text or an AI recipe.
    /// With `"on_device_model": false` and `--llm-url`, the server writes the AI line itself.
    func assign(_ request: HTTPRequest) throws -> HandlerOutcome {
        let body = try AssignBody(request.body)
        let userID = body.userID, attributes = body.attributes

        let snapshot = snapshots.snapshot
        let assignments: [Assignment]
        // Index into `snapshot.answers` of answer n (snapshot order unless ids were listed).
        var answerIndex: [Int]? = nil
        if let only = body.experiments {
            let indices = try only.map { id throws(APIError) in
                guard let i = snapshot.assigner.index(of: id) else {
                    throw APIError.badRequest("unknown_experiment", "no experiment '\(id)'", field: "experiments")
                }
                return i
            }
            answerIndex = indices
            assignments = snapshot.assigner.assign(userID: userID, attributes: attributes, experimentsAt: indices)
        } else {
            assignments = snapshot.assigner.assign(userID: userID, attributes: attributes)
        }

        // Written straight to bytes from parts rendered at load time: this is the hottest path of the server.
        var paywallRequest: PaywallRequest?
        var out = ByteWriter(capacity: 512 + 1024 * assignments.count)   // an AI recipe's paywall is about 1 KB
        out.append(literal: #"{"user_id":"#)
        JSONWriter.writeString(userID, to: &out)
        out.append(literal: #","assignments":["#)
        for (n, a) in assignments.enumerated() {
            if n > 0 { out.append(0x2C) }
            let answer = snapshot.answers[answerIndex?[n] ?? n]
            out.append(bytes: answer.head)
            let variant = a.variantIndex.flatMap { $0 < answer.variants.count ? answer.variants[$0] : nil }
            if let variant { out.append(bytes: variant.key) } else { out.append(literal: "null") }
            out.append(literal: a.inExperiment ? #","in_experiment":true,"bucket":"# : #","in_experiment":false,"bucket":"#)
            JSONWriter.writeNumber(a.bucket, to: &out)
            out.append(literal: a.reason.answerMembers)
            if let variant {
                if let fixed = variant.fixedPaywall {
                    out.append(bytes: fixed)
                } else {
                    let request = paywallRequest ?? PaywallRequest(
                        variables: Dictionary(body.variables.compactMap { name, value in
                            if case .string(let text) = value { (name, text) } else { nil }
                        }, uniquingKeysWith: { $1 }),
                        signals: JSONBody.dictionary(body.signals), hasOnDeviceModel: body.onDeviceModel)
                    paywallRequest = request
                    var copy = PaywallResolver.resolveCopy(variant.copy, request: request)
                    if let copyGenerator {
                        copy = copyGenerator.copy(copy, for: request, experiment: a.experimentID, variant: variant.variantKey)
                    }
                    variant.writePaywall(copy: copy, to: &out)
                }
            } else {
                out.append(literal: "null")
            }
            out.append(0x7D)
        }
        out.append(literal: "]}")
        return .response(HTTPResponse(status: 200, body: out.bytes))
    }
}

extension Assignment.Reason {
    /// `,"reason":"…","paywall":` for this reason, as one literal.
    var answerMembers: StaticString {
        switch self {
        case .forced: #","reason":"forced","paywall":"#
        case .notRunning: #","reason":"not_running","paywall":"#
        case .outsideDates: #","reason":"outside_dates","paywall":"#
        case .targeting: #","reason":"targeting","paywall":"#
        case .condition: #","reason":"condition","paywall":"#
        case .namespace: #","reason":"namespace","paywall":"#
        case .sticky: #","reason":"sticky","paywall":"#
        case .paused: #","reason":"paused","paywall":"#
        case .coverage: #","reason":"coverage","paywall":"#
        case .assigned: #","reason":"assigned","paywall":"#
        }
    }
}
