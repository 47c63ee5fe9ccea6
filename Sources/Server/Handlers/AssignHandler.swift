import CopyGeneration
import Assignment
import Dispatch
import Events
import ExperimentDefinitions
import HTTPTransport
import PaywallCopy

/// `POST /v1/assign`: the hottest path of the server.
struct AssignHandler: Responder {
    let log: Log
    let snapshots: SnapshotHolder
    /// Sticky records: an exposure already stored decides the arm.
    let exposures: any StickyReader
    /// Writes ai_generated lines for devices with no on-device model; nil without `--llm-url`.
    let copyGenerator: ServerCopyGenerator?

    /// `POST /v1/assign`: body `{"user_id", "attributes"?, "variables"?, "signals"?, "experiments"? | "placement"?, "on_device_model"?}`.
    ///
    /// One answer per experiment in folder order, holdouts aside (or per listed id, in the order
    /// given), each with the variant's paywall resolved for this request: discount text, copy text
    /// or an AI recipe; or, with `placement`, that placement's one answer.
    /// With `"on_device_model": false` and `--llm-url`, the server writes the AI line itself.
    func respond(to request: APIRequest) throws -> HandlerOutcome {
        let body = try AssignBody(request.body)
        let snapshot = snapshots.snapshot
        let placement: (assignable: AssignablePlacement, answer: PlacementAnswer, audience: Int?)?
        let indices: [Int]
        if let id = body.placement {
            guard let p = snapshot.assigner.placement(id),
                  let answer = snapshot.placementAnswersByStorefront[snapshot.storefront(body.attributes)][id] else {
                let known = snapshot.assigner.placements.map(\.id)
                throw APIError.badRequest("unknown_placement", "no placement '\(id)'" + (known.isEmpty ? "; Experiments/ has no placements.json" : "; placements: \(known.joined(separator: ", "))"), field: "placement")
            }
            let audience = p.audienceIndex(attributes: body.attributes)
            placement = (p, answer, audience)
            indices = audience.flatMap { p.audiences[$0].experimentIndex }.map { [$0] } ?? []
        } else if let only = body.experiments {
            placement = nil
            indices = try only.map { id throws(APIError) in
                guard let i = snapshot.assigner.index(of: id) else {
                    throw APIError.badRequest("unknown_experiment", "no experiment '\(id)'", field: "experiments")
                }
                return i
            }
        } else {
            placement = nil
            indices = snapshot.defaultIndices
        }
        guard exposures.waitsForRoundTrip else {
            // An in-process store answers sticky lookups on this thread (and skips users it has
            // never seen without a read): no closure, no copy of the body.
            let assignments = snapshot.assigner.assign(userID: body.userID, attributes: body.attributes, experimentsAt: indices)
            return .response(response(assignments, placement: placement, indices: indices, snapshot: snapshot, body: body))
        }
        // A remote store: the request waits for its sticky records without holding a thread,
        // so many requests can wait together and share one query.
        let pending = snapshot.assigner.prepare(userID: body.userID, attributes: body.attributes, experimentsAt: indices)
        if pending.stickyExperimentIDs.isEmpty {
            return .response(response(snapshot.assigner.finish(pending, stickyKeys: []), placement: placement, indices: indices,
                                      snapshot: snapshot, body: body))
        }
        return .deferred { [self] reply in
            let answered: @Sendable (Result<StickyAnswers, any Error>) -> Void = { result in
                let answers: StickyAnswers
                switch result {
                case .success(let found): answers = found
                case .failure(let error):
                    // Without the record the user is bucketed by hash, which agrees unless weights changed.
                    log.buffered(level: .warning, "sticky lookup failed", [("experiment", .string(pending.stickyExperimentIDs.joined(separator: ","))), ("error", .string(String(describing: error)))])
                    answers = StickyAnswers(variants: [], linked: false)
                }
                let finish = { @Sendable in
                    reply(response(snapshot.assigner.finish(pending, stickyKeys: answers.variants, linked: answers.linked), placement: placement,
                                   indices: indices, snapshot: snapshot, body: body))
                }
                // Writing copy may wait on a model: never on the lookup's thread.
                if copyGenerator != nil { DispatchQueue.global().async(execute: finish) } else { finish() }
            }
            if pending.needsLink {
                // Some answer may be a linked id's person's arm (the sticky record is the person's):
                // the lookup also says whether it is linked.
                exposures.exposedVariantsAndLink(experiments: pending.stickyExperimentIDs, userID: body.userID, completion: answered)
            } else {
                exposures.exposedVariants(experiments: pending.stickyExperimentIDs, userID: body.userID) { result in
                    answered(result.map { StickyAnswers(variants: $0, linked: false) })
                }
            }
        }
    }

    /// The answer for `assignments`: the placement's form when the body names one, else one answer per experiment.
    func response(_ assignments: [Assignment], placement: (assignable: AssignablePlacement, answer: PlacementAnswer, audience: Int?)?,
                  indices: [Int], snapshot: ExperimentSnapshot, body: AssignBody) -> HTTPResponse {
        if let placement {
            return placementResponse(PlacementAssignment(placement: placement.assignable, audienceIndex: placement.audience, assignment: assignments.first),
                                     answer: placement.answer, snapshot: snapshot, body: body)
        }
        return assignResponse(assignments, indices: indices, snapshot: snapshot, body: body)
    }

    /// The answer of `POST /v1/assign` for `assignments` (answer n is `snapshot.answers[indices[n]]`).
    func assignResponse(_ assignments: [Assignment], indices: [Int], snapshot: ExperimentSnapshot, body: AssignBody) -> HTTPResponse {
        // Written straight to bytes from parts rendered at load time: this is the hottest path of the server.
        var paywallRequest = CopyInputs()
        var out = ByteWriter(capacity: 512 + 1024 * assignments.count)   // an AI recipe's paywall is about 1 KB
        // The paywalls priced for the request's storefront, rendered at load time like the default's.
        let answers = snapshot.answersByStorefront[snapshot.storefront(body.attributes)]
        out.append(literal: #"{"user_id":"#)
        JSONWriter.writeString(body.userID.text, to: &out)
        out.append(literal: #","assignments":["#)
        for (n, a) in assignments.enumerated() {
            if n > 0 { out.append(0x2C) }
            let answer = answers[indices[n]]
            out.append(bytes: answer.head)
            let variant = a.variantIndex.flatMap { $0 < answer.variants.count ? answer.variants[$0] : nil }
            if let variant { out.append(bytes: variant.key) } else { out.append(literal: "null") }
            out.append(literal: a.inExperiment ? #","in_experiment":true,"bucket":"# : #","in_experiment":false,"bucket":"#)
            JSONWriter.writeNumber(a.bucket, to: &out)
            if a.reason == .targeting {
                out.append(literal: #","reason":"targeting","targeting_attribute":"#)
                writeFailedAttribute(a.experiment, body: body, to: &out)
                out.append(literal: #","paywall":"#)
            } else {
                out.append(literal: a.reason.answerMembers)
            }
            // The variant's paywall; the winner's when shipped, the control's for a held-out user or a safeguard stop.
            if let shown = a.paywallVariantIndex.flatMap({ $0 < answer.variants.count ? answer.variants[$0] : nil }) {
                writePaywall(shown, experimentID: a.experimentID, body: body, request: &paywallRequest, to: &out)
            } else {
                out.append(literal: "null")
            }
            if a.inExperiment && a.experiment.isBandit { writeAllocationPeriod(a.experiment, snapshot: snapshot, to: &out) }
            out.append(0x7D)
        }
        out.append(literal: "]")
        writeHoldouts(snapshot: snapshot, body: body, to: &out)
        out.append(literal: "}")
        return HTTPResponse(status: 200, body: out.bytes)
    }

    /// The answer of `POST /v1/assign` with `placement`.
    func placementResponse(_ p: PlacementAssignment, answer: PlacementAnswer, snapshot: ExperimentSnapshot, body: AssignBody) -> HTTPResponse {
        var paywallRequest = CopyInputs()
        var out = ByteWriter(capacity: 1536)
        out.append(literal: #"{"user_id":"#)
        JSONWriter.writeString(body.userID.text, to: &out)
        out.append(bytes: answer.placement)
        let audience = p.audienceIndex.map { answer.audiences[$0] }
        if let audience { out.append(bytes: audience.audience) } else { out.append(literal: #","audience":null"#) }
        let shown: ExperimentAnswer.VariantAnswer?
        var source = "default"
        switch p.shows {
        case .variant(let i):
            let answers = snapshot.answersByStorefront[snapshot.storefront(body.attributes)]
            let variants = p.assignment.flatMap { a in snapshot.assigner.index(of: a.experimentID).map { answers[$0].variants } } ?? []
            shown = i < variants.count ? variants[i] : nil
            source = p.assignment?.experimentID ?? source
        case .audience:
            shown = audience?.paywall
            source = p.audience?.name ?? source
        case .placementDefault:
            shown = answer.defaultPaywall
        }
        let show = shown?.showsPaywall ?? false
        out.append(literal: show ? #","show_paywall":true,"paywall":"# : #","show_paywall":false,"paywall":"#)
        if let shown, show {
            writePaywall(shown, experimentID: source, body: body, request: &paywallRequest, to: &out)
        } else {
            out.append(literal: "null")
        }
        if let audience { out.append(bytes: audience.experiment) } else { out.append(literal: #","experiment":null"#) }
        out.append(literal: #","variant":"#)
        if let name = p.assignment?.variantKey {
            JSONWriter.writeString(name, to: &out)
        } else {
            out.append(literal: "null")
        }
        out.append(literal: (p.assignment?.inExperiment ?? false) ? #","in_experiment":true,"reason":"# : #","in_experiment":false,"reason":"#)
        JSONWriter.writeString(p.reason, to: &out)
        if let a = p.assignment, a.reason == .targeting {
            out.append(literal: #","targeting_attribute":"#)
            writeFailedAttribute(a.experiment, body: body, to: &out)
        }
        if let a = p.assignment, a.inExperiment && a.experiment.isBandit { writeAllocationPeriod(a.experiment, snapshot: snapshot, to: &out) }
        writeHoldouts(snapshot: snapshot, body: body, to: &out)
        out.append(literal: "}")
        return HTTPResponse(status: 200, body: out.bytes)
    }

    /// The attribute whose targeting key of `experiment` the request failed, as a JSON string.
    func writeFailedAttribute(_ experiment: AssignableExperiment, body: AssignBody, to out: inout ByteWriter) {
        if let name = experiment.targeting.failedAttribute(body.attributes) {
            JSONWriter.writeString(name, to: &out)
        } else {
            out.append(literal: "null")
        }
    }

    /// `,"allocation_period":"…"`: a bandit's period in force, which the exposure echoes.
    func writeAllocationPeriod(_ experiment: AssignableExperiment, snapshot: ExperimentSnapshot, to out: inout ByteWriter) {
        guard let from = experiment.allocationPeriodText(at: snapshot.assigner.currentTime()) else { return }
        out.append(literal: #","allocation_period":"#)
        JSONWriter.writeString(from, to: &out)
    }

    /// `,"holdouts":[{"experiment","variant"}…]`: the user's arm in each holdout that takes them.
    func writeHoldouts(snapshot: ExperimentSnapshot, body: AssignBody, to out: inout ByteWriter) {
        out.append(literal: #","holdouts":["#)
        if !snapshot.assigner.holdouts.isEmpty {
            for (n, h) in snapshot.assigner.holdoutAssignments(userID: body.userID, attributes: body.attributes).enumerated() {
                if n > 0 { out.append(0x2C) }
                out.append(literal: #"{"experiment":"#)
                JSONWriter.writeString(h.experimentID, to: &out)
                out.append(literal: #","variant":"#)
                JSONWriter.writeString(h.variantKey ?? "", to: &out)
                out.append(0x7D)
            }
        }
        out.append(literal: "]")
    }

    /// One paywall object, its copy resolved for this request (and written by the server's model when asked).
    func writePaywall(_ variant: ExperimentAnswer.VariantAnswer, experimentID: String, body: AssignBody, request: inout CopyInputs,
                      to out: inout ByteWriter) {
        if let fixed = variant.fixedPaywall {
            out.append(bytes: fixed)
            return
        }
        let paywallRequest = request.request(for: variant.copy, body: body, everything: copyGenerator != nil)
        var copy = PaywallResolver.resolveCopy(variant.copy, request: paywallRequest)
        if let copyGenerator {
            copy = copyGenerator.copy(copy, for: paywallRequest, experiment: experimentID, variant: variant.variantKey)
        }
        variant.writePaywall(copy: copy, to: &out)
    }
}

extension Assignment.Reason {
    /// `,"reason":"…","paywall":` for this reason, as one literal.
    var answerMembers: StaticString {
        switch self {
        case .forced: #","reason":"forced","paywall":"#
        case .holdout: #","reason":"holdout","paywall":"#
        case .shipped: #","reason":"shipped","paywall":"#
        case .notRunning: #","reason":"not_running","paywall":"#
        case .outsideDates: #","reason":"outside_dates","paywall":"#
        case .targeting: #","reason":"targeting","paywall":"#
        case .condition: #","reason":"condition","paywall":"#
        case .namespace: #","reason":"namespace","paywall":"#
        case .sticky: #","reason":"sticky","paywall":"#
        case .paused: #","reason":"paused","paywall":"#
        case .coverage: #","reason":"coverage","paywall":"#
        case .assigned: #","reason":"assigned","paywall":"#
        case .safeguard: #","reason":"safeguard","paywall":"#
        }
    }
}

/// What a request's copy reads from its body, decoded the first time a paywall needs it: a
/// template its variables, a recipe its signals (the server's model reads both); static copy
/// and fixed paywalls decode nothing.
struct CopyInputs {
    private var request = PaywallRequest()
    private var variablesRead = false
    private var signalsRead = false

    mutating func request(for copy: CopySpec, body: AssignBody, everything: Bool) -> PaywallRequest {
        request.hasOnDeviceModel = body.onDeviceModel
        var variables = everything, signals = everything
        switch copy {
        case .customVariable: variables = true
        case .aiGenerated: signals = true
        case .staticText: break
        }
        if variables && !variablesRead {
            request.variables = Dictionary(body.variables.compactMap { name, value in
                if case .string(let text) = value { (name, text) } else { nil }
            }, uniquingKeysWith: { $1 })
            variablesRead = true
        }
        if signals && !signalsRead {
            request.signals = JSONBody.dictionary(body.signals)
            signalsRead = true
        }
        return request
    }
}
