import Foundation
import TestSupport
import Testing

/// The README and docs/ as a clone has them: every page a reader can open.
enum DocPages {
    /// `README.md` and every `docs/*.md`, as (path from the repository's root, text).
    static func all() throws -> [(path: String, text: String)] {
        let root = Abctl.packageRoot
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.sorted()
        return try (["README.md"] + docs.map { "docs/" + $0 }).map { path in
            (path, try String(contentsOfFile: root + "/" + path, encoding: .utf8))
        }
    }

    /// The page's lines outside fenced code blocks, with their line numbers.
    static func prose(_ text: String) -> [(number: Int, line: String)] {
        var out: [(Int, String)] = [], inFence = false
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if !inFence { out.append((i + 1, String(line))) }
        }
        return out
    }

    /// A line with its code spans taken out (a link written in a code span is not a link).
    static func withoutCodeSpans(_ line: String) -> String {
        line.replacingOccurrences(of: "`[^`]*`", with: "", options: .regularExpression)
    }

    /// The targets of the inline links `[text](target)` and images of a line.
    static func linkTargets(_ line: String) -> [String] {
        let text = withoutCodeSpans(line)
        let regex = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    /// GitHub's anchors for a page's headings: lowercased, punctuation but `-` and `_` dropped,
    /// spaces made `-`; a repeated heading gets `-1`, `-2`, ….
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:], out: Set<String> = []
        for (_, line) in prose(text) where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for character in title.lowercased() {
                if character.isLetter || character.isNumber || character == "-" || character == "_" { slug.append(character) }
                else if character == " " { slug.append("-") }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            out.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return out
    }
}

/// The repository stands alone: its README and docs link nothing outside it, and every link
/// they make resolves.
@Suite struct DocsStandAloneTests {
    @Test func noPageNamesAFileOutsideTheRepository() throws {
        for (path, text) in try DocPages.all() {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // In prose and in code alike: a clone has no ../shared, and a section of a file it lacks cannot be read.
                #expect(!line.contains("shared/SPEC.md"), "\(path):\(number + 1) names shared/SPEC.md: \(line)")
                #expect(line.range(of: #"\bSPEC\s*§"#, options: .regularExpression) == nil, "\(path):\(number + 1) cites a section of a file the repository does not have: \(line)")
            }
        }
    }

    /// Code and scripts stand alone too: no comment sends a reader to a section of a file a clone
    /// does not have.
    @Test func noSourceCitesASectionOfAFileTheRepositoryDoesNotHave() throws {
        let root = Abctl.packageRoot
        let citation = try Regex(#"\bSPEC\s*(§|section\s+\d)"#)
        var found: [String] = []
        for folder in ["Sources", "Client/Sources", "Tests", "bench", "tools"] {
            let files = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let file = files?.nextObject() as? String {
                guard [".swift", ".py", ".sh", ".lua"].contains(where: { file.hasSuffix($0) }) else { continue }
                let path = folder + "/" + file
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(citation) { found.append("\(path):\(number + 1): \(line)") }
            }
        }
        #expect(found.isEmpty, "cites a section of a file the repository does not have:\n\(found.joined(separator: "\n"))")
    }

    @Test func everyRelativeLinkResolvesInsideTheRepository() throws {
        let root = URL(fileURLWithPath: Abctl.packageRoot).standardizedFileURL.path
        let pages = try DocPages.all()
        let anchorsByPage = Dictionary(uniqueKeysWithValues: pages.map { ($0.path, DocPages.anchors($0.text)) })
        var links = 0
        for (path, text) in pages {
            let folder = URL(fileURLWithPath: root + "/" + path).deletingLastPathComponent()
            for (number, line) in DocPages.prose(text) {
                for target in DocPages.linkTargets(line) {
                    if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
                    links += 1
                    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    let file = parts[0], anchor = parts.count > 1 ? parts[1] : nil
                    let resolved = file.isEmpty ? root + "/" + path : folder.appendingPathComponent(file).standardizedFileURL.path
                    let relative = resolved.hasPrefix(root + "/") ? String(resolved.dropFirst(root.count + 1)) : nil
                    guard let relative else {
                        Issue.record("\(path):\(number): '\(target)' leads outside the repository (\(resolved))")
                        continue
                    }
                    #expect(FileManager.default.fileExists(atPath: resolved), "\(path):\(number): '\(target)' names no file (\(relative))")
                    if let anchor, let anchors = anchorsByPage[relative] {
                        #expect(anchors.contains(anchor), "\(path):\(number): '\(target)': \(relative) has no heading '#\(anchor)'")
                    }
                }
            }
        }
        #expect(links > 50, "found only \(links) relative links: is the link pattern still right?")
    }

    @Test func theCheckCatchesALinkOutside() {
        #expect(DocPages.linkTargets("see [the contract](../../shared/SPEC.md) and `[x](not/a/link)`") == ["../../shared/SPEC.md"])
        #expect(DocPages.anchors("# `abctl serve`: the HTTP API\n## In CI\n## In CI\n").sorted() == ["abctl-serve-the-http-api", "in-ci", "in-ci-1"])
    }
}

/// Figures quoted from the demo are the demo's: a paragraph of the README or docs that links a
/// committed report (`Reports/NAME.md`) quotes its figures in code spans, and each code span with a
/// digit in it must appear, as written, in one of the reports the paragraph links. Reports/ is
/// what `abctl demo` writes (a release build regenerates it), so a quote that drifts fails here.
@Suite struct DemoFiguresTests {
    static func paragraphs(_ text: String) -> [String] {
        var out: [String] = [], current: [String] = []
        for (_, line) in DocPages.prose(text) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { out.append(current.joined(separator: " ")) }
                current = []
            } else {
                current.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        if !current.isEmpty { out.append(current.joined(separator: " ")) }
        return out
    }

    static func codeSpans(_ text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: "`([^`]+)`")
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }

    @Test func everyQuotedDemoFigureIsInTheCommittedReports() throws {
        let root = Abctl.packageRoot
        var quotes = 0
        for (path, text) in try DocPages.all() {
            for paragraph in Self.paragraphs(text) {
                let reports = DocPages.linkTargets(paragraph).compactMap { target -> String? in
                    guard let range = target.range(of: #"Reports/[A-Za-z0-9_-]+\.md$"#, options: .regularExpression) else { return nil }
                    return String(target[range])
                }
                guard !reports.isEmpty else { continue }
                let texts = try reports.map { try String(contentsOfFile: root + "/" + $0, encoding: .utf8) }
                for span in Self.codeSpans(paragraph) where span.contains(where: \.isNumber) {
                    quotes += 1
                    #expect(texts.contains { $0.contains(span) }, "\(path): '\(span)' is not in \(reports.joined(separator: " or ")): the demo no longer prints it")
                }
            }
        }
        #expect(quotes >= 3, "found \(quotes) quoted demo figures")
    }

    /// Words that say a figure comes from the demo; a paragraph using them must link the report it quotes.
    @Test func aParagraphQuotingTheShippedStoryLinksItsReport() throws {
        for (path, text) in try DocPages.all() {
            for paragraph in Self.paragraphs(text) where paragraph.contains("On the shipped story") || paragraph.contains("Its report,") {
                #expect(paragraph.contains("Reports/"), "\(path): a paragraph quotes the demo without linking its report: \(paragraph.prefix(120))…")
            }
        }
    }
}
