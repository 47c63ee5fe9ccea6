import Assignment
import ExperimentDefinitions

/// Writes `abctl assign` answers: NDJSON (`user_id`, `experiment`, `variant`, `in_experiment`,
/// `bucket`, `reason`, and `targeting_attribute` when `reason` is `targeting`) or
/// space-separated text columns (`user_id experiment variant|- reason bucket`, and the
/// attribute as a sixth column when `reason` is `targeting`).
///
/// Per-experiment JSON fragments are encoded once, so a line costs a few byte copies.
struct AssignmentPrinter {
    enum Format: String { case json, text }

    let format: Format
    /// Per experiment (snapshot order): `,"experiment":"ID","variant":` and each variant's quoted key.
    private let experimentFragments: [[UInt8]]
    private let variantFragments: [[[UInt8]]]
    /// Per experiment, to name the attribute a `targeting` answer failed on.
    private let targetings: [Targeting]
    /// In `Assignment.Reason.allCases` order (an array, not a dictionary: no hashing per line).
    private let reasonFragments: [[UInt8]]
    /// With `--paywall`: per experiment and variant, `,"paywall":{…}}\n` (the paywall as
    /// `/v1/assign` resolves it for the storefront, with no variables or signals); the reason
    /// fragments then leave the line open for it.
    private let paywallFragments: [[[UInt8]]]?
    private let nullPaywall = Array(",\"paywall\":null}\n".utf8)
    private let winners: [Int?]

    init(format: Format, experiments: [AssignableExperiment], paywalls: [[JSONValue]]? = nil) {
        self.format = format
        paywallFragments = paywalls?.map { $0.map { Array(",\"paywall\":\($0.serialized())}\n".utf8) } }
        winners = experiments.map(\.winnerIndex)
        experimentFragments = experiments.map { e in
            format == .json ? Array(",\"experiment\":\(Self.quoted(e.id)),\"variant\":".utf8) : Array(" \(e.id) ".utf8)
        }
        variantFragments = experiments.map { e in
            e.variantKeys.map { format == .json ? Array(Self.quoted($0).utf8) : Array($0.utf8) }
        }
        targetings = experiments.map(\.targeting)
        reasonFragments = Assignment.Reason.allCases.map { r in
            format == .json ? Array(",\"reason\":\"\(r.rawValue)\"\(paywalls == nil ? "}\n" : "")".utf8) : Array(" \(r.rawValue) ".utf8)
        }
    }

    static func quoted(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, to: &out)
        return out
    }

    @inline(__always) static func ordinal(_ r: Assignment.Reason) -> Int {
        Assignment.Reason.allCases.firstIndex(of: r)!
    }

    /// The user-id part every line of one user starts with; plain ASCII ids skip the escaper.
    func userPrefix(_ userID: String) -> [UInt8] {
        guard format == .json else { return Array(userID.utf8) }
        let plain = userID.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
        var out = Array("{\"user_id\":\"".utf8)
        if plain {
            out.append(contentsOf: userID.utf8)
            out.append(0x22)
        } else {
            out.removeLast()
            out.append(contentsOf: Self.quoted(userID).utf8)
        }
        return out
    }

    /// Appends one line per answer; `results` are in snapshot order (decision i ↔ experiment i),
    /// decided for `attributes`.
    func write(userPrefix: [UInt8], attributes: Attributes, results: [AssignmentDecision], indices: [Int], to out: inout OutputBuffer) {
        for i in indices {
            let r = results[i]
            out.append(userPrefix)
            out.append(experimentFragments[i])
            if let v = r.variantIndex { out.append(variantFragments[i][v]) } else { out.append(format == .json ? Self.null : Self.dash) }
            let failed = r.reason == .targeting ? targetings[i].failedAttribute(attributes) : nil
            if format == .json {
                out.append(r.inExperiment ? Self.inTrue : Self.inFalse)
                Self.appendBucket(r.bucket, to: &out)
                if let failed {
                    out.append(Array(",\"reason\":\"targeting\",\"targeting_attribute\":\(Self.quoted(failed))\(paywallFragments == nil ? "}\n" : "")".utf8))
                } else {
                    out.append(reasonFragments[Self.ordinal(r.reason)])
                }
                if let paywallFragments {
                    // The paywall shown: the variant's, the winner's when shipped, the control's for a holdout or a safeguard stop.
                    let shown: Int? = r.variantIndex ?? (r.reason == .shipped ? winners[i] : r.reason == .holdout || r.reason == .safeguard ? 0 : nil)
                    if let shown, shown < paywallFragments[i].count { out.append(paywallFragments[i][shown]) } else { out.append(nullPaywall) }
                }
            } else {
                out.append(reasonFragments[Self.ordinal(r.reason)])
                Self.appendBucket(r.bucket, to: &out)
                if let failed { out.append(Array(" \(failed)".utf8)) }
                out.append(0x0A)
            }
        }
    }

    private static let null = Array("null".utf8)
    private static let dash = Array("-".utf8)
    private static let inTrue = Array(",\"in_experiment\":true,\"bucket\":".utf8)
    private static let inFalse = Array(",\"in_experiment\":false,\"bucket\":".utf8)

    /// A bucket is k/10000 (hash v2) or k/1000 (v1): printed as `0`, `0.5`, `0.1234`, the same
    /// digits as the shortest round-trip form of the double, without formatting a string.
    static func appendBucket(_ bucket: Double, to out: inout OutputBuffer) {
        let scaled = (bucket * 10_000).rounded()
        guard bucket >= 0, bucket < 1, scaled / 10_000 == bucket else {
            out.append(JSONValue.format(bucket))
            return
        }
        var k = Int(scaled)
        out.append(0x30)
        if k == 0 { return }
        out.append(0x2E)
        var digits = 4
        while k % 10 == 0 { k /= 10; digits -= 1 }
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(0x30 + (k / divisor) % 10))
            divisor /= 10
        }
    }
}
