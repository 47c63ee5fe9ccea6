import ExperimentDefinitions

/// A `--name` option, declared once: with a `valueName` it takes a value of `type`, without it is a flag.
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

        public static let integer = ValueType.integer(Int.min...Int.max)
        public static let positiveInteger = ValueType.integer(1...Int.max)
        public static let number = ValueType.number(-Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)

        /// The range as help shows it ("between 1 and 1000", "at least 1"); nil when any value of the type is taken.
        public var rangeDescription: String? {
            switch self {
            case .string: return nil
            case .integer(let r):
                if r.lowerBound == Int.min { return r.upperBound == Int.max ? nil : "at most \(r.upperBound)" }
                return r.upperBound == Int.max ? "at least \(r.lowerBound)" : "between \(r.lowerBound) and \(r.upperBound)"
            case .number(let r):
                let top = Double.greatestFiniteMagnitude
                let text = JSONValue.format   // whole numbers without a fraction, as JSON writes them
                if r.lowerBound == -top { return r.upperBound == top ? nil : "at most \(text(r.upperBound))" }
                return r.upperBound == top ? "at least \(text(r.lowerBound))" : "between \(text(r.lowerBound)) and \(text(r.upperBound))"
            }
        }
    }

    public var name: String
    public var valueName: String?
    public var help: String
    /// Accepted values (e.g. a `--format` list).
    public var choices: [String]
    public var repeatable: Bool
    /// Environment variable read when the option is absent; an empty variable counts as unset.
    public var environment: String?
    public var type: ValueType
    /// The value when neither the command line nor the environment gives one; shown in the help.
    public var defaultValue: String?
    /// A missing required option is a usage error.
    public var required: Bool

    public init(name: String, valueName: String? = nil, help: String, choices: [String] = [], repeatable: Bool = false,
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
