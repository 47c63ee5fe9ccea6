/// The console's routes: HTML for people, beside the API's routes in the router and
/// outside `/openapi.json`. Their access is the console's own (`ConsoleGate`: sessions, not keys
/// in `Authorization`), so the route table marks them open and each handler checks it. Every route
/// but the sign-in form and the assets reads the store, so it is answered off the request threads.
enum ConsoleRoutes {
    static let all: [RouteSpec] = [
        offRequestThread("GET", "/", document: page("consoleOverview", "Every experiment, the ones that need someone first."),
              make: { ConsoleOverview(gate: $0.console, snapshots: $0.snapshots, reports: $0.consoleReports, outbox: $0.store,
                                              refreshSeconds: $0.options.console.refreshSeconds) }),
        offRequestThread("GET", "/experiments/{id}", document: page("consoleExperiment", "One experiment's report, with its parameters as a form, the next step, the file as loaded and its history."),
              make: { ConsoleExperimentPage(gate: $0.console, snapshots: $0.snapshots, reports: $0.consoleReports,
                                                    histories: $0.consoleHistories, refreshSeconds: $0.options.console.refreshSeconds) }),
        offRequestThread("POST", "/experiments/{id}/share", document: page("consoleShareCreate", "Make a share link of one experiment's report."),
              make: { ConsoleShareCreate(gate: $0.console, snapshots: $0.snapshots) }),
        offRequestThread("POST", "/experiments/{id}/shares/{share}/revoke", document: page("consoleShareRevoke", "End a share link."),
              make: { ConsoleShareRevoke(gate: $0.console) }),
        offRequestThread("POST", "/experiments/{id}/safeguards/reset", document: page("consoleSafeguardReset", "Lift an arm's safeguard stop (admin)."),
              make: { ConsoleSafeguardReset(gate: $0.console, snapshots: $0.snapshots, safeguards: $0.safeguards) }),
        offRequestThread("GET", "/share/{id}", document: page("consoleShare", "One experiment's report, read only, through a share link."),
              make: { ConsoleSharePage(gate: $0.console, snapshots: $0.snapshots, reports: $0.consoleReports,
                                               refreshSeconds: $0.options.console.refreshSeconds) }),
        offRequestThread("GET", "/placements", document: page("consolePlacements", "Each placement's audiences, what each shows and its share of the last 7 days' exposures."),
              make: { ConsolePlacements(gate: $0.console, snapshots: $0.snapshots, exposures: $0.store, clock: $0.options.reportClock, log: $0.log) }),
        .init("GET", "/login", access: .open, document: page("consoleSignInPage", "The sign-in form."),
              make: { ConsoleSignInPage(gate: $0.console) }),
        offRequestThread("POST", "/login", document: page("consoleSignIn", "Sign in with a key that has the report or admin scope."),
              make: { ConsoleSignIn(gate: $0.console, log: $0.log) }),
        offRequestThread("POST", "/logout", document: page("consoleSignOut", "Revoke the session."),
              make: { ConsoleSignOut(gate: $0.console) }),
        .init("GET", "/assets/{file}", access: .open, document: page("consoleAsset", "The stylesheet and the script, under their content hashes."),
              make: { _ in ConsoleAssetHandler() }),
    ]

    /// The request headers the console reads (the transport copies only the ones asked for).
    static let headerNames = ["Cookie", "Origin", "Host", "Sec-Fetch-Site", ClientAddress.forwardedForHeader]
    /// Of those, the ones a request may send on several lines, each copied (a proxy may add its own
    /// `X-Forwarded-For` line below the one a client wrote).
    static let everyLineHeaderNames = [ClientAddress.forwardedForHeader]

    /// A route answered on the console's low-priority threads (`ConsoleOffRequestThread`).
    private static func offRequestThread(_ method: String, _ pattern: String, document: RouteDocument,
                                         make: @escaping @Sendable (HandlerDependencies) -> any Responder) -> RouteSpec {
        RouteSpec(method, pattern, access: .open, document: document, make: { dependencies in
            ConsoleOffRequestThread(threads: dependencies.consolePages, route: pattern, log: dependencies.log, page: make(dependencies))
        })
    }

    private static func page(_ id: String, _ summary: String) -> RouteDocument {
        RouteDocument(id, summary: summary, answers: [.answer(200, "An HTML page.", mediaType: "text/html")])
    }
}
