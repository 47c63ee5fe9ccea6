/// The report laid out once (DESIGN: one document of sections and tables): what each section
/// says, in which order, with which tables and columns. Text, Markdown and HTML are thin writers
/// of it (`TextReportRenderer`, `MarkdownReportRenderer`, `HTMLReportRenderer`): they choose marks,
/// escaping and markup, never what is shown. JSON and CSV read the `Report` itself.
struct ReportDocument {
    var title: String
    var experimentID: String
    var status: String
    /// "generated …", "data as of …", "29,958 users", "95% intervals".
    var facts: [String]
    var primaryMetric: String
    var hypothesis: String?
    var sections: [Section]
    /// The methods in one line, under the last section.
    var footer: String

    /// Words, code (an id from a file or an event) and marks (clearly better, clearly worse),
    /// which each writer shows its own way.
    enum Inline: Equatable {
        case text(String)
        case code(String)
        case mark(Tone)
    }

    enum Tone: Equatable { case good, bad }

    /// A list item's badge: a health check's level, or a safeguard stop in force or lifted.
    enum Badge: String { case alert, warning, info, ok, stop, reset }

    struct Section {
        /// Set on the verdict's section: writers colour or frame it by the verdict.
        var verdict: Decision.Verdict?
        var title: [Inline]
        var blocks: [Block]
    }

    enum Style { case plain, muted, strong }

    enum Block {
        case paragraph([Inline], Style)
        case list([(badge: Badge?, text: String)])
        case table(Table)
        /// Drawn by the HTML writer only, with its caption; the tables beside it hold the same figures.
        case chart(Chart, caption: String)
    }

    enum Chart {
        case forest, conversion, revenue, forecast, survival
        /// A bandit's weights per allocation period.
        case allocation
        /// The forest plot of `segments[index]`.
        case segment(Int)
        /// The primary's difference to the control by day, with its interval.
        case timeline
    }

    struct Table {
        enum Align { case left, right }
        struct Column {
            var header: String
            var align: Align
            /// Where a cell's `detail` (an interval) gets a column of its own in text, its header.
            var detailHeader: String? = nil
        }
        struct Cell {
            var text: String
            /// The interval under the figure (HTML), beside it (Markdown) or in the next column (text).
            var detail: String? = nil
            /// The count under a figure, shown in HTML only (text and Markdown keep to one line).
            var note: String? = nil
            /// Clearly better or worse: coloured in text and HTML.
            var tone: Tone? = nil
            /// Marks the figure itself (▲, ✅ …) as clearly better or worse.
            var marked = false
            /// A tag after the text: "primary".
            var tag: String? = nil
            /// The text is an id from a file or an event.
            var code = false
        }
        var columns: [Column]
        var rows: [[Cell]]
    }
}

extension ReportDocument.Table.Cell: ExpressibleByStringLiteral {
    init(stringLiteral s: String) { self.init(text: s) }
    init(_ s: String) { self.init(text: s) }
}
