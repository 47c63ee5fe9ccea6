/// The paywall copy strategy of a variant.
public enum CopySpec: Sendable {
    /// The text as it is.
    case staticText(String)
    /// `{{ custom.NAME }}` placeholders filled from the request's variables, else `defaults`.
    case customVariable(template: CopyTemplate, defaults: [String: String])
    /// A recipe the app (or the server) turns into a line with a model.
    case aiGenerated(AIRecipe)

    /// The strategy name as written in files.
    public var strategyName: String {
        switch self {
        case .staticText: "static"
        case .customVariable: "custom_variable"
        case .aiGenerated: "ai_generated"
        }
    }
}

/// What an on-device or server model needs to write one line of paywall copy.
public struct AIRecipe: Sendable {
    public var instructions: String
    public var brief: Brief
    /// The prompt, with `{{ brief }}` where the brief goes.
    public var prompt: CopyTemplate
    public var temperature: Double?
    public var maxTokens: Int?
    public var guardRules: CopyGuard
    /// Shipped when the brief is empty or no acceptable line could be had.
    public var fallback: String

    public init(
        instructions: String, brief: Brief, prompt: CopyTemplate, temperature: Double? = nil, maxTokens: Int? = nil,
        guardRules: CopyGuard, fallback: String
    ) {
        self.instructions = instructions
        self.brief = brief
        self.prompt = prompt
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.guardRules = guardRules
        self.fallback = fallback
    }
}

/// Deterministic rules that turn fixed onboarding answers ("signals") into a brief.
public struct Brief: Sendable {
    public var rules: [BriefRule]

    public init(rules: [BriefRule]) { self.rules = rules }

    /// The sentences of all matching rules, in rule order, joined by spaces; empty when none match.
    public func build(signals: [String: JSONValue]) -> String {
        rules.filter { $0.matches(signals) }.map(\.say).joined(separator: " ")
    }
}

/// `{"when": {"signal": S, "equals"|"in"|"present": …}, "say": sentence}`.
public struct BriefRule: Sendable {
    public enum Test: Sendable, Equatable {
        case equals(String)
        case isIn([String])
        case present(Bool)
    }

    public var signal: String
    public var test: Test
    public var say: String

    public init(signal: String, test: Test, say: String) {
        self.signal = signal
        self.test = test
        self.say = say
    }

    /// Signal values are compared as text; values the rules do not name simply match nothing.
    public func matches(_ signals: [String: JSONValue]) -> Bool {
        let answer = signals[signal]
        let answered: Bool
        switch answer {
        case nil, .null?: answered = false
        case .string(let s)?: answered = !s.isEmpty
        default: answered = true
        }
        switch test {
        case .present(let wanted): return answered == wanted
        case .equals(let value): return answer.flatMap(Self.text) == value
        case .isIn(let values): return answer.flatMap(Self.text).map(values.contains) ?? false
        }
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        default: return nil
        }
    }
}
