/// The rules a generated line must pass before it reaches a paywall.
///
/// Lives with the file format because the validator checks that each fallback passes its own guard.
public struct CopyGuard: Sendable, Equatable {
    public var maxWords: Int?
    /// Substrings that may not appear at all (punctuation such as "?" or "—", phrases).
    public var forbid: [String]
    /// Whole words that may not appear, compared case-insensitively.
    public var forbidWords: [String]
    /// Names that must appear exactly once each (as whole words, case-insensitively).
    public var mentionOnce: [String]
    /// When true, the user's own name may not appear.
    public var forbidUserName: Bool

    public init(maxWords: Int? = nil, forbid: [String] = [], forbidWords: [String] = [], mentionOnce: [String] = [], forbidUserName: Bool = false) {
        self.maxWords = maxWords
        self.forbid = forbid
        self.forbidWords = forbidWords
        self.mentionOnce = mentionOnce
        self.forbidUserName = forbidUserName
    }

    /// One broken rule, named as in the file.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public var rule: String
        public var message: String
        public var description: String { "\(rule): \(message)" }
    }

    /// The outcome for one line: the cleaned text and every rule it broke.
    public struct Verdict: Sendable, Equatable {
        public var text: String
        public var violations: [Violation]
        public var accepted: Bool { violations.isEmpty }
    }

    /// Characters trimmed from both ends before the rules run: stray JSON quotes and braces, curly quotes, whitespace.
    static let strayCharacters: Set<Character> = ["{", "}", "\"", "\u{201C}", "\u{201D}"]

    public static func clean(_ line: String) -> String {
        var s = Substring(line)
        while let f = s.first, f.isWhitespace || strayCharacters.contains(f) { s.removeFirst() }
        while let l = s.last, l.isWhitespace || strayCharacters.contains(l) { s.removeLast() }
        return String(s)
    }

    public func check(_ line: String, userName: String? = nil) -> Verdict {
        let text = Self.clean(line)
        var violations: [Violation] = []
        let words = Self.words(in: text)
        if text.isEmpty {
            violations.append(Violation(rule: "empty", message: "the line is empty"))
        }
        if let maxWords, words.count > maxWords {
            violations.append(Violation(rule: "max_words", message: "\(words.count) words, more than the limit of \(maxWords)"))
        }
        for s in forbid where !s.isEmpty && text.contains(s) {
            violations.append(Violation(rule: "forbid", message: "contains the forbidden text \"\(s)\""))
        }
        let lowered = words.map { $0.lowercased() }
        for w in forbidWords where Self.count(phrase: w, in: lowered) > 0 {
            violations.append(Violation(rule: "forbid_words", message: "uses the banned word \"\(w)\""))
        }
        for name in mentionOnce {
            let n = Self.count(phrase: name, in: lowered)
            if n != 1 {
                violations.append(Violation(rule: "mention_once", message: "mentions \"\(name)\" \(n) times; it must appear exactly once"))
            }
        }
        if forbidUserName, let userName, !userName.trimmingSpaces().isEmpty, Self.count(phrase: userName, in: lowered) > 0 {
            violations.append(Violation(rule: "forbid_user_name", message: "uses the user's name \"\(userName)\""))
        }
        return Verdict(text: text, violations: violations)
    }

    /// Words: maximal runs of letters, digits, apostrophes and hyphens inside a word.
    static func words(in text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for ch in text {
            if ch.isLetter || ch.isNumber || ch.isMark || ((ch == "'" || ch == "\u{2019}" || ch == "-") && !current.isEmpty) {
                current.append(ch)
            } else if !current.isEmpty {
                words.append(current.trimmingWordEnd())
                current = ""
            }
        }
        if !current.isEmpty { words.append(current.trimmingWordEnd()) }
        return words
    }

    /// How often the (possibly multi-word) phrase occurs as whole words in the lowercased word list.
    static func count(phrase: String, in lowered: [String]) -> Int {
        let target = words(in: phrase).map { $0.lowercased() }
        guard !target.isEmpty, target.count <= lowered.count else { return 0 }
        var n = 0
        for start in 0...(lowered.count - target.count) where Array(lowered[start..<start + target.count]) == target {
            n += 1
        }
        return n
    }
}

extension Character {
    var isMark: Bool { unicodeScalars.first.map { $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark } ?? false }
}

extension String {
    fileprivate func trimmingWordEnd() -> String {
        var s = self
        while let l = s.last, l == "'" || l == "\u{2019}" || l == "-" { s.removeLast() }
        return s
    }
}
