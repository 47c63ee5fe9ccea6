/// One option, declared once and typed by its declaration: `OptionKey<String>` has a default or is
/// required, so it always has a value; `OptionKey<String?>` may have none; `OptionKey<Int>`,
/// `OptionKey<Double>` hold values the parser checked against their range; `OptionKey<Bool>` is a
/// flag; `OptionKey<[String]>` is every value of an option, in order. `ParsedArguments[key]`
/// reads it (see `OptionKeys` for where keys are declared). Reading an option with a default or
/// required that the command does not list among its options stops the program: a mistake in the
/// command, which its first run shows.
public final class OptionKey<Value: Sendable>: OptionKeys, @unchecked Sendable {
    let read: @Sendable (ParsedArguments) -> Value

    init(_ spec: OptionSpec, read: @escaping @Sendable (ParsedArguments) -> Value) {
        self.read = read
        super.init(spec: spec)
    }
}

extension OptionKey where Value == String {
    /// A text option with a default (which help shows): the command line, else the variable, else the default.
    public convenience init(_ name: String, value valueName: String, help: String, choices: [String] = [], environment: String? = nil, default defaultValue: String) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, choices: choices, environment: environment, default: defaultValue)) { $0.declared(name).text }
    }

    /// A text option that must be given (on the command line, or by its variable).
    public convenience init(required name: String, value valueName: String, help: String, choices: [String] = [], environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, choices: choices, environment: environment, required: true)) { $0.declared(name).text }
    }
}

extension OptionKey where Value == String? {
    /// A text option that may be absent.
    public convenience init(_ name: String, value valueName: String, help: String, choices: [String] = [], environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, choices: choices, environment: environment)) { $0.last(name)?.text }
    }
}

extension OptionKey where Value == [String] {
    /// Every value of the option, in order: a repeatable option (`--attr a=1 --attr b=2`), or one
    /// whose values a command passes on as text; empty when it has none.
    public convenience init(_ name: String, value valueName: String, help: String, repeatable: Bool = true, environment: String? = nil, default defaultValue: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable, environment: environment, default: defaultValue)) {
            $0.values[name]?.map(\.text) ?? []
        }
    }
}

extension OptionKey where Value == Bool {
    /// A flag: true when given.
    public convenience init(flag name: String, help: String) {
        self.init(OptionSpec(name: name, help: help)) { $0.flags.contains(name) }
    }
}

extension OptionKey where Value == Int {
    /// A whole number within `range`, with a default.
    public convenience init(_ name: String, value valueName: String, help: String, range: ClosedRange<Int> = Int.min...Int.max, environment: String? = nil, default defaultValue: Int) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .integer(range), default: String(defaultValue))) { $0.declared(name).integer! }
    }

    /// A whole number within `range` that must be given.
    public convenience init(required name: String, value valueName: String, help: String, range: ClosedRange<Int> = Int.min...Int.max, environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .integer(range), required: true)) { $0.declared(name).integer! }
    }
}

extension OptionKey where Value == Int? {
    /// A whole number within `range` that may be absent.
    public convenience init(_ name: String, value valueName: String, help: String, range: ClosedRange<Int> = Int.min...Int.max, environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .integer(range))) { $0.last(name)?.integer }
    }
}

extension OptionKey where Value == Double {
    /// A finite number within `range`, with a default.
    public convenience init(_ name: String, value valueName: String, help: String, range: ClosedRange<Double> = OptionSpec.ValueType.anyNumber, environment: String? = nil, default defaultValue: Double) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .number(range), default: OptionSpec.ValueType.text(defaultValue))) {
            $0.declared(name).number!
        }
    }

    /// A finite number within `range` that must be given.
    public convenience init(required name: String, value valueName: String, help: String, range: ClosedRange<Double> = OptionSpec.ValueType.anyNumber, environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .number(range), required: true)) { $0.declared(name).number! }
    }
}

extension OptionKey where Value == Double? {
    /// A finite number within `range` that may be absent.
    public convenience init(_ name: String, value valueName: String, help: String, range: ClosedRange<Double> = OptionSpec.ValueType.anyNumber, environment: String? = nil) {
        self.init(OptionSpec(name: name, valueName: valueName, help: help, environment: environment, type: .number(range))) { $0.last(name)?.number }
    }
}
