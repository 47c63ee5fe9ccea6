/// A plain-text table with aligned columns; cells may carry an ANSI colour applied after padding.
struct TextTable {
    enum Align { case left, right }
    struct Cell {
        var text: String
        var color: String? = nil
    }

    var headers: [String]
    var aligns: [Align]
    var rows: [[Cell]] = []

    init(_ headers: [String], aligns: [Align]? = nil) {
        self.headers = headers
        self.aligns = aligns ?? ([.left] + Array(repeating: .right, count: max(0, headers.count - 1)))
    }

    mutating func add(_ cells: [Cell]) { rows.append(cells) }
    mutating func add(_ texts: [String]) { rows.append(texts.map { Cell(text: $0) }) }

    func render(indent: String = "  ", color: Bool) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.text.count) }
        }
        func line(_ cells: [Cell], bold: Bool) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.text.count))
                var text = aligns[i] == .left ? cell.text + pad : pad + cell.text
                if color, let code = cell.color ?? (bold ? "1" : nil) { text = "\u{1B}[\(code)m\(text)\u{1B}[0m" }
                parts.append(text)
            }
            var s = indent + parts.joined(separator: "  ")
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
        var out = line(headers.map { Cell(text: $0) }, bold: true) + "\n"
        out += indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows { out += line(row, bold: false) + "\n" }
        return out
    }
}
