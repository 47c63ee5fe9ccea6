import Events

/// The overview's section of the notifications the outbox gave up on (a 4xx other than 408 and
/// 429, a redirect, or 24 hours of retries), by experiment, the latest failure first; nothing at
/// all when there are none. A target shows as its scheme, host and port, and a URL in the error
/// likewise: a chat webhook's path is its secret.
enum ConsoleFailedNotifications {
    /// How many the page lists; `abctl safeguards check` lists every one.
    static let shown = 20

    /// What the page is given: the latest failures (one more than it lists, to know there are
    /// more), or nil when the store could not be read.
    static func read(_ outbox: any NotificationOutbox) -> [OutboxNotification]? {
        try? outbox.failedNotifications(limit: shown + 1)
    }

    static func section(_ failed: [OutboxNotification]?) -> String {
        let esc = ConsolePage.escape
        guard let failed else {
            return "<section class=\"failures\"><h2>Notifications that failed</h2>"
                + "<p class=\"error\">The notifications outbox could not be read from the event store; reload in a moment.</p></section>"
        }
        guard !failed.isEmpty else { return "" }
        let listed = Array(failed.prefix(shown))
        var b = "<section class=\"failures\"><h2>Notifications that failed</h2><p class=\"muted\">"
        b += failed.count > shown ? "The latest \(shown) notifications given up" : "\(listed.count) notification\(listed.count == 1 ? "" : "s") given up"
        b += ", the latest first: no receiver acknowledged them, so no one was told. <code>abctl safeguards check</code> lists every one.</p>"
        var experiments: [String] = []
        for n in listed where !experiments.contains(n.experiment) { experiments.append(n.experiment) }
        for experiment in experiments {
            b += "<h3><a href=\"/experiments/\(esc(ConsolePage.percentEncode(experiment)))\"><code>\(esc(experiment))</code></a></h3><ul>"
            for n in listed where n.experiment == experiment {
                b += "<li><code>\(esc(n.type))</code> to <code>\(esc(NotificationRedaction.target(n.target)))</code>"
                b += ", given up \(esc(n.finishedAt.map { "at " + $0.rfc3339 } ?? "at an unknown time")) after \(n.attempts) tr\(n.attempts == 1 ? "y" : "ies"): "
                b += "<span class=\"error\">\(esc(NotificationRedaction.urls(in: n.lastError ?? "unknown error")))</span>"
                b += " <span class=\"muted\">(the occurrence: \(esc(n.at.rfc3339)))</span></li>"
            }
            b += "</ul>"
        }
        return b + "</section>"
    }
}
