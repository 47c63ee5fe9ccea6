import ExperimentDefinitions
import Foundation

/// One input of a report, declared once for both front doors: `abctl report --min-segment-users 50`
/// and `GET /v1/experiments/{id}/report?min_segment_users=50`. The CLI's options, the API's
/// query parameters and the OpenAPI document are made from these declarations, and
/// `ReportParameters.apply` is the one check of their values, so the two doors accept and refuse
/// the same inputs.
public struct ReportParameter: Sendable {
    public enum Kind: Sendable { case time, alpha, dimension, count }

    /// The query parameter's name; the CLI's option is `--` and the name with `-` for `_`.
    public let name: String
    public let kind: Kind
    public let valueName: String
    public let help: String
    /// The default, as text, where there is one.
    public let defaultValue: String?

    public var option: String { "--" + name.replacingOccurrences(of: "_", with: "-") }
    public var repeatable: Bool { kind == .dimension }

    /// Its JSON Schema, for the OpenAPI document.
    public var schema: String {
        switch kind {
        case .time: #"{"type":"string","description":"RFC 3339, or YYYY-MM-DD for midnight UTC"}"#
        case .alpha: #"{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.5,"default":0.05}"#
        case .dimension: #"{"type":"string"}"#
        case .count: #"{"type":"integer","minimum":1,"default":100}"#
        }
    }
}

public enum ReportParameters {
    public static let all: [ReportParameter] = [
        .init(name: "since", kind: .time, valueName: "date", help: "Only users first exposed at or after this time (RFC 3339 or YYYY-MM-DD).", defaultValue: nil),
        .init(name: "until", kind: .time, valueName: "date", help: "Only users first exposed before this time; the data is read as of it (RFC 3339 or YYYY-MM-DD).", defaultValue: nil),
        .init(name: "alpha", kind: .alpha, valueName: "a", help: "1 − confidence level (0.05 for 95% intervals); between 0 and 0.5.", defaultValue: "0.05"),
        .init(name: "by", kind: .dimension, valueName: "dimension", help: "Split the comparisons by a segment (placement, platform, country, language, app_version, new_user, or a name in the file's segments); repeatable, or comma-separated. Exploratory: never changes the verdict.", defaultValue: nil),
        .init(name: "min_segment_users", kind: .count, valueName: "n", help: "Values with fewer users in any arm are pooled into 'other'; a whole number of at least 1.", defaultValue: "100"),
    ]

    /// A refused value: `parameter` is the declaration's name, `message` names it as the caller spelt it.
    public struct Invalid: Error, Sendable, Equatable {
        public let parameter: String
        public let message: String
    }

    /// Sets `options` from (name, value) pairs, names as declared; `spell` writes a name as the
    /// caller's user types it (`--min-segment-users` on the command line, `min_segment_users` in a
    /// query). `experiment` checks `by` against its dimensions; without it (every experiment of a
    /// folder) call `checkSegments` per experiment.
    public static func apply(_ pairs: [(name: String, value: String)], to options: inout ReportOptions, experiment: Experiment?,
                             spell: (ReportParameter) -> String) throws(Invalid) {
        for (name, value) in pairs {
            guard let parameter = all.first(where: { $0.name == name }) else {
                let hint = Spelling.closest(to: name, in: all.map(\.name)).map { " Did you mean '\($0)'?" } ?? ""
                throw Invalid(parameter: name, message: "unknown parameter '\(name)'; the report takes \(all.map(\.name).joined(separator: ", ")).\(hint)")
            }
            let shown = spell(parameter)
            func invalid(_ message: String) -> Invalid { Invalid(parameter: name, message: message) }
            switch parameter.kind {
            case .time:
                guard let date = time(value) else { throw invalid("'\(shown)' expects an RFC 3339 time or YYYY-MM-DD, got '\(value)'") }
                if name == "since" { options.since = date } else { options.until = date }
            case .alpha:
                guard let alpha = Double(value), alpha > 0, alpha < 0.5 else { throw invalid("'\(shown)' must be a number between 0 and 0.5, got '\(value)'") }
                options.alpha = alpha
            case .dimension:
                // Empty items kept, so `by=`, `--by ''` and `country,` are refused like `' '` is.
                for dimension in value.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    guard !dimension.isEmpty else { throw invalid("'\(shown)' names an empty segment") }
                    if !options.segments.contains(dimension) { options.segments.append(dimension) }
                }
            case .count:
                guard let n = Int(value), n >= 1 else { throw invalid("'\(shown)' must be a whole number of at least 1, got '\(value)'") }
                options.minSegmentUsers = n
            }
        }
        if let since = options.since, let until = options.until, since >= until {
            let names = all.filter { $0.kind == .time }.map(spell)
            throw Invalid(parameter: "since", message: "'\(names[0])' must be before '\(names[1])'")
        }
        if let experiment { try checkSegments(options.segments, for: experiment, spell: spell) }
    }

    /// Every asked dimension is one the experiment can be split by.
    public static func checkSegments(_ segments: [String], for experiment: Experiment, spell: (ReportParameter) -> String) throws(Invalid) {
        let known = experiment.segmentDimensions
        for dimension in segments where !known.contains(dimension) {
            let hint = Spelling.closest(to: dimension, in: known).map { " Did you mean '\($0)'?" } ?? ""
            let by = spell(all.first { $0.kind == .dimension }!)
            throw Invalid(parameter: "by", message: "'\(experiment.id)' has no segment '\(dimension)'; '\(by)' takes \(known.joined(separator: ", ")).\(hint)")
        }
    }

    /// RFC 3339, or a plain `YYYY-MM-DD` meaning midnight UTC.
    public static func time(_ text: String) -> Date? {
        if let date = RFC3339.parse(text) { return date }
        if text.utf8.count == 10 { return RFC3339.parse(text + "T00:00:00Z") }
        return nil
    }
}
