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
    }

    public let source: String
    public let segments: [Segment]

    public init(parsing source: String) throws(Problem) {
        self.source = source
        var segments: [Segment] = []
        var literal = ""
        let chars = Array(source)
        var i = 0
        while i < chars.count {
            if chars[i] == "{" && i + 1 < chars.count && chars[i + 1] == "{" {
                var j = i + 2
                while j + 1 < chars.count && !(chars[j] == "}" && chars[j + 1] == "}") { j += 1 }
                guard j + 1 < chars.count else {
                    throw Problem(message: "placeholder opened with '{{' is never closed with '}}'", offset: i)
                }
                let expression = String(chars[(i + 2)..<j]).trimmingSpaces()
                guard Self.isValidExpression(expression) else {
                    throw Problem(
                        message: "malformed placeholder '{{\(String(chars[(i + 2)..<j]))}}'; write {{ custom.NAME }} or {{ brief }}",
                        offset: i)
                }
                if !literal.isEmpty { segments.append(.text(literal)); literal = "" }
                segments.append(.placeholder(expression))
                i = j + 2
            } else if chars[i] == "}" && i + 1 < chars.count && chars[i + 1] == "}" {
                throw Problem(message: "'}}' without a matching '{{'", offset: i)
            } else {
                literal.append(chars[i])
                i += 1
            }
        }
        if !literal.isEmpty { segments.append(.text(literal)) }
        self.segments = segments
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
