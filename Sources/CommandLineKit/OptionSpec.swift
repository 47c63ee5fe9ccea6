/// What the parser and the help printer know of a `--name` option: with a `valueName` it takes a
/// value of `type`, without it is a flag. Made only by an `OptionKey`, which also fixes how a
/// command reads it.
///
/// When the option is absent from the command line, its `environment` variable (when set and not
/// empty) and then its `defaultValue` stand in, as swift-argument-parser's `@Option(default)` does;
/// the parser applies them and checks the value's type, choices and range, so a command reads
/// only typed, checked values.
public struct OptionSpec: Sendable {
    /// What an option's value must be.
    public enum ValueType: Sendable, Equatable {
        case string
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
        /// A finite number within the range.
        case number(ClosedRange<Double>)

        /// Every finite number.
        public static let anyNumber = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude

        /// The range as help shows it ("between 1 and 1000", "at least 1"); nil when any value of the type is taken.
        public var rangeDescription: String? {
            switch self {
            case .string: return nil
            case .integer(let r):
                if r.lowerBound == Int.min { return r.upperBound == Int.max ? nil : "at most \(r.upperBound)" }
                return r.upperBound == Int.max ? "at least \(r.lowerBound)" : "between \(r.lowerBound) and \(r.upperBound)"
            case .number(let r):
                let top = Double.greatestFiniteMagnitude
                if r.lowerBound == -top { return r.upperBound == top ? nil : "at most \(Self.text(r.upperBound))" }
                return r.upperBound == top ? "at least \(Self.text(r.lowerBound))" : "between \(Self.text(r.lowerBound)) and \(Self.text(r.upperBound))"
            }
        }

        /// A number as help writes it: whole numbers without a fraction (86400, not 86400.0), others
        /// in Swift's shortest round-trip form (0.05).
        static func text(_ n: Double) -> String {
            n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
        }
    }

    public let name: String
    public let valueName: String?
    public let help: String
    /// Accepted values (e.g. a `--format` list).
    public let choices: [String]
    public let repeatable: Bool
    /// Environment variable read when the option is absent; an empty variable counts as unset.
    public let environment: String?
    public let type: ValueType
    /// The value when neither the command line nor the environment gives one; shown in the help.
    public let defaultValue: String?
    /// A missing required option is a usage error.
    public let required: Bool

    init(name: String, valueName: String? = nil, help: String, choices: [String] = [], repeatable: Bool = false,
         environment: String? = nil, type: ValueType = .string, default defaultValue: String? = nil, required: Bool = false) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.choices = choices
        self.repeatable = repeatable
        self.environment = environment
        self.type = type
        self.defaultValue = defaultValue
        self.required = required
    }

    public var isFlag: Bool { valueName == nil }

    /// The option as a generated usage line shows it.
    public var usage: String {
        let form = valueName.map { "\(name) <\($0)>" } ?? name
        if required { return repeatable ? "\(form) ..." : form }
        return repeatable ? "[\(form) ...]" : "[\(form)]"
    }
}
