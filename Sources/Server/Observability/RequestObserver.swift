import HTTPTransport

/// The wrapper around every request that counts it in the metrics and writes its access-log line:
/// handlers do neither.
struct RequestObserver: Sendable {
    let metrics: Metrics
    let log: Log

    /// Clients choose methods freely; metrics label only these, and the rest as `other`.
    private static let knownMethods = ["POST", "GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]

    func answered(route: String, method: String, status: Int, seconds: Double) {
        metrics.request(route: route, method: Self.knownMethods.contains(method) ? method : "other", status: status, seconds: seconds)
    }

    func completed(_ summary: RequestSummary) {
        // One JSON line per request, written straight to bytes (same shape as `Log.write`). Lengths
        // are checked in bytes first: `String.count` walks every character.
        var line = ByteWriter(capacity: 256)
        line.append(literal: #"{"ts":""#)
        Log.appendTimestamp(to: &line)
        line.append(literal: summary.status >= 500 || summary.status == 0 ? #"","level":"warning","# : #"","level":"info","#)
        line.append(literal: #""msg":"request","method":"#)
        switch summary.method {
        case "POST": line.append(literal: #""POST""#)
        case "GET": line.append(literal: #""GET""#)
        default: JSONWriter.writeString(summary.method.utf8.count > 16 && summary.method.count > 16 ? String(summary.method.prefix(16)) : summary.method, to: &line)
        }
        line.append(literal: #","path":"#)
        let pathStart = line.count
        // A share link's id is a credential: logs write `/share/…` (and `…/shares/…/revoke`).
        var shown = summary.path
        if shown.hasPrefix("/share/") {
            shown = "/share/…"
        } else if let shares = shown.range(of: "/shares/") {
            shown = shown[..<shares.upperBound] + "…" + (shown.hasSuffix("/revoke") ? "/revoke" : "")
        }
        JSONWriter.writeString(shown.utf8.count > 256 && shown.count > 256 ? String(shown.prefix(256)) + "…" : shown, to: &line)
        let path = pathStart..<line.count
        line.append(literal: #","route":"#)
        // A literal route is its path: the same text again.
        if summary.route == summary.path { line.appendCopy(of: path) } else { JSONWriter.writeString(summary.route, to: &line) }
        line.append(literal: #","status":"#)
        JSONWriter.writeInteger(Int64(summary.status), to: &line)
        line.append(literal: #","duration_ms":"#)
        JSONWriter.writeNumber((summary.seconds * 1_000_000).rounded() / 1000, to: &line)
        line.append(literal: #","bytes_in":"#)
        JSONWriter.writeInteger(Int64(summary.bytesIn), to: &line)
        line.append(literal: #","bytes_out":"#)
        JSONWriter.writeInteger(Int64(summary.bytesOut), to: &line)
        if let termination = summary.termination {
            line.append(literal: #","terminated":"#)
            JSONWriter.writeString(termination, to: &line)
        }
        line.append(0x7D)
        line.withUnsafeBytes { log.buffered(line: $0) }
    }
}
