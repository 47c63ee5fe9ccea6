import Foundation

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar {
    let total: Int
    let label: String
    let enabled: Bool
    private var lastDrawn = Date.distantPast

    init(total: Int, label: String) {
        self.total = max(total, 1)
        self.label = label
        self.enabled = Terminal.stderrIsTerminal
    }

    func update(_ done: Int) {
        guard enabled, Date().timeIntervalSince(lastDrawn) > 0.1 || done >= total else { return }
        lastDrawn = Date()
        let fraction = min(Double(done) / Double(total), 1)
        let width = 30, filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(Int(fraction * 100))% (\(done)/\(total))".utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
