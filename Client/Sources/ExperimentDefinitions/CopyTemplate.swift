/// A text with `{{ name }}` placeholders, parsed once; rendering inserts values as plain text.
///
/// Placeholders are `{{ custom.NAME }}` (request variables) or `{{ brief }}` (AI prompts);
/// spaces inside the braces are optional. Values are never re-expanded.
public struct CopyTemplate: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        case text(String)
        /// The expression inside the braces, e.g. `custom.userName` or `brief`.
        case placeholder(String)
    }

    /// A placeholder that could not be read, with its offset (in characters) from the start of the template.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
        public var offset: Int
        /// For a malformed placeholder, what stood between its braces (trimmed).
        public var expression: String? = nil
    }

    public let source: String
    public let segments: [Segment]

    public init(parsing source: String) throws(Problem) {
        let scan = Self.scan(source)
        if let first = scan.problems.first { throw first }
        self.source = source
        self.segments = scan.segments
    }

    /// Every placeholder and every problem of `source`, reading on past each problem so that a
    /// validator can report them all at once (an unclosed `{{` ends the reading: the rest is inside it).
    public static func scan(_ source: String) -> (segments: [Segment], problems: [Problem]) {
        var segments: [Segment] = []
        var problems: [Problem] = []
        var literal = ""
        let chars = Array(source)
        var i = 0
        while i < chars.count {
            if chars[i] == "{" && i + 1 < chars.count && chars[i + 1] == "{" {
                var j = i + 2
                while j + 1 < chars.count && !(chars[j] == "}" && chars[j + 1] == "}") { j += 1 }
                guard j + 1 < chars.count else {
                    problems.append(Problem(message: "placeholder opened with '{{' is never closed with '}}'", offset: i))
                    break
                }
                let expression = String(chars[(i + 2)..<j]).trimmingSpaces()
                if Self.isValidExpression(expression) {
                    if !literal.isEmpty { segments.append(.text(literal)); literal = "" }
                    segments.append(.placeholder(expression))
                } else {
                    problems.append(Problem(
                        message: "malformed placeholder '{{\(String(chars[(i + 2)..<j]))}}'; write {{ custom.NAME }} or {{ brief }}",
                        offset: i, expression: expression))
                }
                i = j + 2
            } else if chars[i] == "}" && i + 1 < chars.count && chars[i + 1] == "}" {
                problems.append(Problem(message: "'}}' without a matching '{{'", offset: i))
                i += 2
            } else {
                literal.append(chars[i])
                i += 1
            }
        }
        if !literal.isEmpty { segments.append(.text(literal)) }
        return (segments, problems)
    }

    /// Names of the `custom.NAME` placeholders, in order of first appearance.
    public var customNames: [String] {
        var seen: [String] = []
        for case .placeholder(let e) in segments where e.hasPrefix("custom.") {
            let name = String(e.dropFirst("custom.".count))
            if !seen.contains(name) { seen.append(name) }
        }
        return seen
    }

    public var placeholders: [String] {
        segments.compactMap { if case .placeholder(let e) = $0 { e } else { nil } }
    }

    /// Fills each placeholder with `value(expression)`; a nil answer leaves the placeholder's source text.
    public func render(_ value: (String) -> String?) -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .text(let t): out += t
            case .placeholder(let e): out += value(e) ?? "{{ \(e) }}"
            }
        }
        return out
    }

    private static func isValidExpression(_ e: String) -> Bool {
        if e == "brief" { return true }
        guard e.hasPrefix("custom.") else { return false }
        let name = e.dropFirst("custom.".count)
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
