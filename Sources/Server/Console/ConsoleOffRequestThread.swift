import HTTPTransport

/// A console route whose answer reads the store or builds a page: all of it (the session's check
/// included) runs on the console's low-priority threads, and the request thread only sends the
/// finished bytes, so reading the console never takes a core from `/v1/assign` at its priority.
/// Beyond the threads' bound the answer is the console's 503 page with `Retry-After`.
struct ConsoleOffRequestThread: Responder {
    let threads: LowPriorityThreads
    /// The route's pattern, for the log line of an unexpected error.
    let route: String
    let log: Log
    let page: any Responder

    func respond(to request: APIRequest) throws -> HandlerOutcome {
        .deferred { [threads, route, log, page] respond in
            let started = threads.run {
                let outcome: HandlerOutcome
                do {
                    outcome = try page.respond(to: request)
                } catch {
                    outcome = .response(ErrorResponses.response(for: error, route: route, log: log))
                }
                switch outcome {
                case .response(let response): respond(response)
                case .deferred(let start): start(respond)
                }
            }
            if !started { respond(Self.busy(threads)) }
        }
    }

    static func busy(_ threads: LowPriorityThreads) -> HTTPResponse {
        let wait = threads.retryAfterSeconds
        return ConsolePage.message(503, title: "Busy", "This server is answering \(threads.width + threads.waiting) console pages already; retry in \(wait) s.",
                                   extra: [("Retry-After", String(wait))])
    }
}
