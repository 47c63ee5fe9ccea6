/// What of a notification's target or error a person or the log may see: a chat webhook's path
/// is its secret (and any URL's path or query may hold a token), so a URL is shown as its scheme,
/// host and port only.
enum NotificationRedaction {
    /// A `--notify-url` as scheme, host and port (`?` when it cannot be read).
    static func target(_ given: String) -> String {
        guard let t = NotificationTarget(given, format: .json) else { return "?" }
        return "\(t.url.scheme ?? "")://\(t.url.host ?? "")\(t.url.port.map { ":\($0)" } ?? "")"
    }

    /// `text` (a try's error) with each URL in it cut to its scheme, host and port, and each
    /// path alone (a relative `Location`) to `/…`.
    static func urls(in text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            if word.contains("://") { return target(String(word)) }
            if word.hasPrefix("/") && word.count > 1 { return "/…" }
            return String(word)
        }.joined(separator: " ")
    }
}
