import ExperimentDefinitions

extension ResolvedPaywall {
    /// The `paywall` object of a `/v1/assign` answer.
    public var json: JSONValue {
        .object(membersBeforeCopy + [("copy", copy.json)])
    }

    /// Every member but `copy`, which comes last: the part that does not depend on the request.
    public var membersBeforeCopy: [(String, JSONValue)] {
        [
            ("offering", .string(offering)),
            ("trial_days", .number(Double(trialDays))),
            ("discount_framing", .string(discountFraming.rawValue)),
            ("discount_text", discountText.map(JSONValue.string) ?? .null),
            ("highlighted_plan", highlightedPlan.map(JSONValue.string) ?? .null),
            ("plans", .array(plans.map(\.json))),
        ]
    }
}

extension ResolvedPlan {
    public var json: JSONValue {
        .object([
            ("key", .string(key)), ("product_id", .string(productID)), ("price", .number(price)),
            ("period", .string(period)), ("currency", .string(currency)), ("highlighted", .bool(highlighted)),
        ])
    }
}

extension ResolvedCopy {
    public var json: JSONValue {
        switch self {
        case .text(let text, let source, let reason):
            var members: [(String, JSONValue)] = [("source", .string(source.rawValue)), ("text", .string(text))]
            if let reason { members.append(("fallback_reason", .string(reason.rawValue))) }
            return .object(members)
        case .recipe(let r):
            var generation: [(String, JSONValue)] = []
            if let t = r.temperature { generation.append(("temperature", .number(t))) }
            if let m = r.maxTokens { generation.append(("max_tokens", .number(Double(m)))) }
            return .object([
                ("source", .string(CopySource.onDevice.rawValue)),
                ("text", .null),
                ("recipe", .object([
                    ("instructions", .string(r.instructions)),
                    ("brief", .string(r.brief)),
                    ("prompt", .string(r.prompt)),
                    ("generation", .object(generation)),
                    ("guard", r.guardRules.json),
                    ("fallback", .string(r.fallback)),
                ])),
            ])
        }
    }
}

extension CopyGuard {
    /// The guard as written in experiment files, for apps that check on the device.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let maxWords { members.append(("max_words", .number(Double(maxWords)))) }
        members.append(("mention_once", .array(mentionOnce.map(JSONValue.string))))
        members.append(("forbid", .array(forbid.map(JSONValue.string))))
        members.append(("forbid_words", .array(forbidWords.map(JSONValue.string))))
        members.append(("forbid_user_name", .bool(forbidUserName)))
        return .object(members)
    }
}

extension CopyGuard.Verdict {
    /// The answer of `/v1/copy/check` and `abctl copy check --format json`.
    public var json: JSONValue {
        .object([
            ("accepted", .bool(accepted)),
            ("text", .string(text)),
            ("violations", .array(violations.map { .object([("rule", .string($0.rule)), ("message", .string($0.message))]) })),
        ])
    }
}
