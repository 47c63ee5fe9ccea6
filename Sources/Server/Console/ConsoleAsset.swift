/// A file the console serves from the binary (its stylesheet, its script) under a name holding the
/// first 16 hex digits of its SHA-256, so a browser may keep it for a year and still never use a
/// stale one: a new build with other bytes has another name.
struct ConsoleAsset: Sendable {
    let contentType: String
    let bytes: [UInt8]
    /// The file name under `/assets/`, e.g. `console-0123456789abcdef.css`.
    let fileName: String

    init(text: String, extension ext: String, contentType: String) {
        self.contentType = contentType
        bytes = Array(text.utf8)
        fileName = "console-" + String(decoding: Digest.sha256Hex(bytes).prefix(16), as: UTF8.self) + "." + ext
    }

    var path: String { "/assets/" + fileName }

    /// Every asset the console serves.
    static let all = [ConsoleStylesheet.asset, ConsoleScript.asset]
}
