import Assignment
import Dispatch
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
        let snapshot = snapshots.snapshot
        // Index into `snapshot.answers` of answer n (snapshot order unless ids were listed).
        let answerIndex: [Int]? = try body.experiments.map { only in
            try only.map { id throws(APIError) in
                guard let i = snapshot.assigner.index(of: id) else {
                    throw APIError.badRequest("unknown_experiment", "no experiment '\(id)'", field: "experiments")
                }
                return i
            }
        }
        let indices = answerIndex ?? Array(snapshot.assigner.experiments.indices)
        let exposures = backend.exposures
        guard exposures.waitsForRoundTrip else {
            // An in-process store answers sticky lookups on this thread.
            let assignments = snapshot.assigner.assign(userID: body.userID, attributes: body.attributes, experimentsAt: indices)
            return .response(assignResponse(assignments, answerIndex: answerIndex, snapshot: snapshot, body: body))
        }
        // A remote store: the request waits for its sticky records without holding a thread,
        // so many requests can wait together and share one query.
        let pending = snapshot.assigner.prepare(userID: body.userID, attributes: body.attributes, experimentsAt: indices)
        if pending.stickyExperimentIDs.isEmpty {
            let assignments = snapshot.assigner.finish(pending, stickyKeys: [])
            return .response(assignResponse(assignments, answerIndex: answerIndex, snapshot: snapshot, body: body))
        }
        return .deferred { [self] respond in
            exposures.exposedVariants(experiments: pending.stickyExperimentIDs, userID: body.userID) { result in
                let keys: [String?]
                switch result {
                case .success(let found): keys = found
                case .failure(let error):
                    // Without the record the user is bucketed by hash, which agrees unless weights changed.
                    Log.shared.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(pending.stickyExperimentIDs.joined(separator: ","))), ("error", .string(String(describing: error)))])
                    keys = []
                }
                let finish = { @Sendable in
                    let assignments = snapshot.assigner.finish(pending, stickyKeys: keys)
                    respond(self.assignResponse(assignments, answerIndex: answerIndex, snapshot: snapshot, body: body))
                }
                // Writing copy may wait on a model: never on the lookup's thread.
                if self.copyGenerator != nil { DispatchQueue.global().async(execute: finish) } else { finish() }
            }
        }
    }

    /// The answer of `POST /v1/assign` for `assignments` (answer n is `snapshot.answers[answerIndex?[n] ?? n]`).
    func assignResponse(_ assignments: [Assignment], answerIndex: [Int]?, snapshot: ExperimentSnapshot, body: AssignBody) -> HTTPResponse {
        // Written straight to bytes from parts rendered at load time: this is the hottest path of the server.
        var paywallRequest: PaywallRequest?
        var out = ByteWriter(capacity: 512 + 1024 * assignments.count)   // an AI recipe's paywall is about 1 KB
        out.append(literal: #"{"user_id":"#)
        JSONWriter.writeString(body.userID.text, to: &out)
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
        return HTTPResponse(status: 200, body: out.bytes)
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
