import CommandLineKit
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Server
import Webhooks

/// `abctl serve`: the HTTP API.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the HTTP API: assignment, events, webhooks, reports.",
        discussion: """
        Serve the HTTP API on libmicrohttpd (every route with its scope: GET /openapi.json, docs/API.md).
          API keys come from ABCTL_API_KEYS (KEY:scope,scope[:NAME];KEY2:scope) or --keys-file (one
          'KEY scope,scope [NAME]' a line; NAME says who holds the key); scopes are assign (POST /v1/assign), ingest (POST /v1/events,
          POST /v1/identify), app (what an app build carries: assign, identify, and exposure and
          identified events only), admin (everything, reports included), report (read only:
          definitions, reports and the console) and sdk (below).
          The console (docs/Console.md) is served at / : sign in at /login with a report or admin key
          of at least 24 characters; sessions last --session-hours; without keys it is open on
          loopback names only. Failed console sign-ins are counted per client address; behind a
          proxy, --trusted-proxy ADDR names it, and a request from it is counted under the rightmost
          X-Forwarded-For address that is not the proxy. Its pages read reports the lease holder
          (below) computes in the background and stores for every node: again after new events, at
          most every --console-refresh-s.
          Without keys the server listens on loopback only. The RevenueCat
          webhook checks its Authorization header against ABCTL_REVENUECAT_AUTH.
          SIGHUP reloads the experiment files (a broken folder keeps the old ones) and --keys-file (a key
          removed or stripped of a scope stops at once, its console sessions too); SIGTERM drains
          requests in flight and exits 0. One JSON log line per request goes to stderr.
          With --llm-url and --llm-model, an assign request that says "on_device_model": false gets
          its ai_generated line written by that OpenAI-compatible endpoint (key: ABCTL_LLM_API_KEY),
          guarded, cached in the store, or the fallback when it takes longer than --llm-deadline-ms.
          With --appstore-root-ca and --appstore-bundle-id, POST /v1/webhooks/appstore takes App Store
          Server Notifications V2, verified against those roots. With --stripe-secret (or
          ABCTL_STRIPE_SECRETS), POST /v1/webhooks/stripe takes Stripe events signed with one of them.
          With the five --google-certs/--googleplay-* flags, POST /v1/webhooks/googleplay takes Google
          Play real-time developer notifications pushed by Pub/Sub (see docs/Webhooks.md). Keys with scope sdk are GrowthBook
          client keys for GET /api/features/{clientKey}. ABCTL_NOW (RFC 3339) fixes the clock of
          GET /v1/experiments/{id}/report, as it does for abctl report, and of safeguard evaluations.
          Experiments with 'safeguards' are evaluated every check_minutes by one node at a time (on
          PostgreSQL, the holder of an advisory lock; another node takes over if it dies); every node
          reads the stops in force every 2 s.
          With --notify-url (repeatable, or ABCTL_NOTIFY_URLS, comma-separated) the lease holder POSTs
          a JSON notification for each safeguard stop and reset, decision ready (a ship or stop
          verdict), sample ratio mismatch, running experiment with no exposure for 24 hours, and
          running experiment past its end: once each, recorded in the store before it is sent,
          retried for 24 hours until a 2xx (see docs/Notifications.md). A URL written slack+https://…
          (or every URL, with --notify-format slack) gets {"text"} for a chat's incoming webhook;
          --public-url links each one to the experiment's console page; ABCTL_NOTIFY_SECRET signs
          each POST (Abctl-Signature: t=UNIX,v1=HMAC-SHA256 of t.body).
        """,
        options: [
            .port, .host, .db, .experiments, .keysFile, .maxBody, .threads, .maxConnections, .maxConnectionsPerIP, .timeout,
            .headerTimeout, .bodyTimeout, .writeTimeout, .minRate, .llmURL, .llmModel, .llmDeadline, .llmRetryAfter,
            .appStoreRootCA, .appStoreBundleID, .appStoreEnvironment, .stripeSecret, .stripeTolerance,
            .googleCerts, .googlePlayAudience, .googlePlayPushAccount, .googlePlayPackage, .googlePlayServiceAccount, .googlePlayAPIURL,
            .notifyURL, .notifyFormat, .publicURL, .sessionHours, .consoleRefresh, .consoleInsecureCookie, .trustedProxy,
        ],
        settings: [
            .now,
            .apiKeys,
            .sessionSecret,
            .revenueCatAuth,
            .llmAPIKey,
            .notifySecret,
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let port = args[.port], maxBody = args[.maxBody]
        // The one default that depends on the machine.
        let threads = args[.threads] ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
        let connections = args[.maxConnections], perIP = args[.maxConnectionsPerIP]
        let timeout = args[.timeout], minRate = args[.minRate]
        let headTimeout = args[.headerTimeout], bodyTimeout = args[.bodyTimeout]
        let writeTimeout = args[.writeTimeout]
        let host = args[.host], experiments = args[.experiments], database = args[.db]

        let keys = try loadKeys(file: args[.keysFile], environment: args.setting(.apiKeys))
        let copyGeneration = try copyGenerationOptions(args)
        let revenueCat = args.setting(.revenueCatAuth)
        let appStore = try appStoreOptions(args)
        let stripe = try stripeOptions(args)
        let googlePlay = try googlePlayOptions(args)
        let reportClock = FixedClock.now(args)
        let notifications = try notificationOptions(args)
        do {
            try Server.checkListening(host: host, keys: keys)
        } catch {
            throw CLIError.usage(error.description, command: "serve")
        }
        let console = try consoleOptions(args, host: host)

        let store = try StoreOpener.open(database, .init(readers: threads + 2))
        defer { store.close() }
        var configuration = Server.Configuration(
            http: HTTPDaemon.Configuration(host: host, port: UInt16(port), threads: threads,
                                           maxBodyBytes: maxBody, idleTimeoutSeconds: timeout,
                                           headTimeoutSeconds: headTimeout, bodyTimeoutSeconds: bodyTimeout,
                                           writeTimeoutSeconds: writeTimeout, minBytesPerSecond: minRate,
                                           connectionLimit: connections, maxConnectionsPerIP: perIP),
            api: APIServer.Options(keys: keys, revenueCatAuthorization: revenueCat,
                                   experimentsDirectory: experiments,
                                   copyGeneration: copyGeneration, appStore: appStore, reportClock: reportClock,
                                   stripe: stripe, googlePlay: googlePlay,
                                   safeguards: SafeguardService.Options(notifications: notifications, clock: reportClock)),
            store: store)
        configuration.api.console = console
        configuration.api.keysFile = args[.keysFile]
        // The console's own origin, which every POST's Origin must equal, is the address people reach it at.
        configuration.api.console.publicURL = notifications.publicURL?.absoluteString
        do {
            let server = try Server(configuration: configuration)
            try server.run { port in
                let host = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
                FileHandle.standardOutput.write(Data("abctl: listening on http://\(host):\(port)\n".utf8))
            }
        } catch .configuration(let message) {
            throw CLIError.usage(message, command: "serve")
        } catch .invalidExperiments(let message) {
            throw CLIError.checkFailed(message)
        } catch .runtime(let message) {
            throw CLIError.runtime(message)
        }
        return .success
    }

    /// `--llm-url` and `--llm-model` go together; without them there is no server-side generation.
    static func copyGenerationOptions(_ args: ParsedArguments) throws -> CopyGenerationOptions? {
        let url = args[.llmURL], model = args[.llmModel]
        guard let url else {
            let dependents: [OptionKeys] = [.llmModel, .llmDeadline, .llmRetryAfter]
            let orphan = dependents.first { args.source(of: $0) == .commandLine }
            if let orphan { throw CLIError.usage("'\(orphan.spec.name)' needs '--llm-url'", command: "serve") }
            return nil
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            throw CLIError.usage("'--llm-url' must be an http or https URL, got '\(url)'", command: "serve")
        }
        guard let model, !model.isEmpty else { throw CLIError.usage("'--llm-url' needs '--llm-model'", command: "serve") }
        let milliseconds = args[.llmDeadline], retrySeconds = args[.llmRetryAfter]
        let apiKey = args.setting(.llmAPIKey)
        return CopyGenerationOptions(url: parsed, model: model, apiKey: apiKey, deadline: .milliseconds(milliseconds),
                                     retryAfter: .seconds(retrySeconds))
    }

    /// `--appstore-root-ca` (repeatable) and `--appstore-bundle-id` go together; without them the webhook is off.
    static func appStoreOptions(_ args: ParsedArguments) throws -> AppStoreOptions? {
        let files = args[.appStoreRootCA], bundle = args[.appStoreBundleID]
        if files.isEmpty && bundle == nil { return nil }
        guard !files.isEmpty else { throw CLIError.usage("'--appstore-bundle-id' needs '--appstore-root-ca'", command: "serve") }
        guard let bundle, !bundle.isEmpty else { throw CLIError.usage("'--appstore-root-ca' needs '--appstore-bundle-id'", command: "serve") }
        var roots: [[UInt8]] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError.usage("cannot read --appstore-root-ca '\(file)'", command: "serve")
            }
            roots.append([UInt8](data))
        }
        do {
            return AppStoreOptions(verifier: try AppStoreJWSVerifier(roots: roots), bundleID: bundle,
                                   environment: args[.appStoreEnvironment] == "sandbox" ? "Sandbox" : "Production")
        } catch {
            throw CLIError.usage("--appstore-root-ca: \(error.description)", command: "serve")
        }
    }

    /// `--stripe-secret` (repeatable) or `ABCTL_STRIPE_SECRETS` (comma-separated); none: the webhook is off.
    static func stripeOptions(_ args: ParsedArguments) throws -> StripeOptions? {
        var secrets = args[.stripeSecret]
        if case .environment? = args.source(of: .stripeSecret) {
            secrets = secrets.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        secrets = secrets.filter { !$0.isEmpty }
        guard !secrets.isEmpty else {
            if args.source(of: .stripeTolerance) == .commandLine { throw CLIError.usage("'--stripe-tolerance-s' needs '--stripe-secret'", command: "serve") }
            return nil
        }
        return StripeOptions(signature: StripeSignature(secrets: secrets, toleranceSeconds: args[.stripeTolerance]))
    }

    /// The Google Play flags go together: all five, or none (the webhook is then off).
    static func googlePlayOptions(_ args: ParsedArguments) throws -> GooglePlayOptions? {
        let keys: [OptionKey<String?>] = [.googleCerts, .googlePlayAudience, .googlePlayPushAccount, .googlePlayPackage, .googlePlayServiceAccount]
        let names = keys.map(\.spec.name)
        let given = keys.filter { args[$0] != nil }.map(\.spec.name)
        if given.isEmpty {
            if args.source(of: .googlePlayAPIURL) == .commandLine { throw CLIError.usage("'--googleplay-api-url' needs the other --googleplay flags", command: "serve") }
            return nil
        }
        if let missing = keys.first(where: { args[$0] == nil }) {
            throw CLIError.usage("'\(given[0])' needs '\(missing.spec.name)' (the Google Play webhook takes \(names.joined(separator: ", ")))", command: "serve")
        }
        func read(_ key: OptionKey<String?>) throws -> [UInt8] {
            let path = args[key]!
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.usage("cannot read \(key.spec.name) '\(path)'", command: "serve") }
            return [UInt8](data)
        }
        let certsPath = args[.googleCerts]!
        let apiText = args[.googlePlayAPIURL]
        guard let apiURL = URL(string: apiText), ["http", "https"].contains(apiURL.scheme?.lowercased() ?? ""), apiURL.host != nil else {
            throw CLIError.usage("'--googleplay-api-url' must be an http or https URL, got '\(apiText)'", command: "serve")
        }
        do {
            let verifier = try GooglePushVerifier(certificates: try read(.googleCerts), audience: args[.googlePlayAudience]!,
                                                  account: args[.googlePlayPushAccount]!)
            let key = try ServiceAccountKey(file: try read(.googlePlayServiceAccount))
            let api = GooglePlayAPI(baseURL: apiURL, packageName: args[.googlePlayPackage]!, key: key, transport: URLSessionTransport())
            return GooglePlayOptions(verifier: verifier, certificatesPath: certsPath, api: api)
        } catch let error as GooglePushVerifier.ConfigurationError {
            throw CLIError.usage("--google-certs: \(error.description)", command: "serve")
        } catch let error as ServiceAccountKey.ConfigurationError {
            throw CLIError.usage("--googleplay-service-account: \(error.description)", command: "serve")
        }
    }

    /// `--notify-url` (repeatable; `ABCTL_NOTIFY_URLS`, comma-separated), `--notify-format`,
    /// `--public-url` and `ABCTL_NOTIFY_SECRET`; a URL that is not http(s) is a usage error.
    static func notificationOptions(_ args: ParsedArguments) throws -> NotificationOptions {
        var urls = args[.notifyURL]
        if case .environment? = args.source(of: .notifyURL) {
            urls = urls.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        let format = NotificationTarget.Format(rawValue: args[.notifyFormat]) ?? .json
        var targets: [NotificationTarget] = []
        for text in urls.filter({ !$0.isEmpty }) {
            guard let target = NotificationTarget(text, format: format) else {
                throw CLIError.usage("'--notify-url' must be an http or https URL (or slack+https://…), got '\(text)'", command: "serve")
            }
            if !targets.contains(target) { targets.append(target) }
        }
        var publicURL: URL?
        if let text = args[.publicURL] {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw CLIError.usage("'--public-url' must be an http or https URL, got '\(text)'", command: "serve")
            }
            publicURL = url
        }
        let secret = args.setting(.notifySecret).flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        return NotificationOptions(targets: targets, publicURL: publicURL, secret: secret)
    }

    /// The API keys from `--keys-file`, else `ABCTL_API_KEYS` (`environment`), else none.
    static func loadKeys(file: String?, environment: String?) throws -> APIKeys {
        do throws(APIKeys.ConfigurationError) {
            if let file { return try APIKeys.read(file: file) }
            if let text = environment {
                return try APIKeys.parse(environment: text)
            }
            return .none
        } catch {
            throw CLIError.usage(error.description, command: "serve")
        }
    }
}

private extension OptionKeys {
    static let port = OptionKey<Int>(required: "--port", value: "port", help: "TCP port; 0 picks a free one and prints it.", range: 0...65535)
    static let host = OptionKey<String>("--host", value: "host", help: "Address to listen on.", default: "127.0.0.1")
    static let keysFile = OptionKey<String?>("--keys-file", value: "file", help: "API keys, one 'KEY scope,scope [NAME]' a line (instead of ABCTL_API_KEYS).")
    static let maxBody = OptionKey<Int>("--max-body", value: "bytes", help: "Largest request body accepted; larger gets 413.", range: 1...Int.max, default: 16_777_216)
    static let threads = OptionKey<Int?>("--threads", value: "n", help: "Server threads, each with its own epoll set (default: 2 per core, at least 4).", range: 1...256)
    static let maxConnections = OptionKey<Int?>("--max-connections", value: "n",
        help: "Open connections at most (default: 16000, or fewer if the open-file limit allows fewer); past it new connections are closed at once.", range: 1...Int.max)
    static let maxConnectionsPerIP = OptionKey<Int>("--max-connections-per-ip", value: "n",
        help: "Open connections at most from one client address (0: no limit; behind a load balancer every connection has its address).", range: 0...Int.max, default: 0)
    static let timeout = OptionKey<Int>("--timeout", value: "seconds", help: "Kept-alive connections with nothing arriving are closed after this long.", range: 1...Int.max, default: 30)
    static let headerTimeout = OptionKey<Double>("--header-timeout", value: "seconds", help: "The request line and headers must arrive within this long, or 408 and close.",
                                                 range: 0.001...86_400, default: 10)
    static let bodyTimeout = OptionKey<Double>("--body-timeout", value: "seconds", help: "A body must arrive within this long plus its size at --min-rate, or 408 and close.",
                                               range: 0.001...86_400, default: 10)
    static let writeTimeout = OptionKey<Double>("--write-timeout", value: "seconds", help: "An answer must be read within this long plus its size at --min-rate, or the connection closes.",
                                                range: 0.001...86_400, default: 10)
    static let minRate = OptionKey<Int>("--min-rate", value: "bytes", help: "Slowest transfer, in bytes per second, that body and answer deadlines allow for.",
                                        range: 1...Int.max, default: 16384)
    static let llmURL = OptionKey<String?>("--llm-url", value: "url", help: "An OpenAI-compatible server (e.g. http://127.0.0.1:8080) that writes AI copy for devices with no model.")
    static let llmModel = OptionKey<String?>("--llm-model", value: "name", help: "The model --llm-url should use.")
    static let llmDeadline = OptionKey<Int>("--llm-deadline-ms", value: "ms", help: "Longest an assign call waits for a generated line before the fallback ships.",
                                            range: 1...60_000, default: 300)
    static let llmRetryAfter = OptionKey<Int>("--llm-retry-after-s", value: "seconds",
        help: "After a failed generation, its brief ships the fallback at once for this long (0 asks again on the next call).", range: 0...86_400, default: 30)
    static let appStoreRootCA = OptionKey<[String]>("--appstore-root-ca", value: "file",
        help: "A root certificate (PEM or DER) App Store notifications must chain to (repeatable; Apple Root CA - G3 in production).")
    static let appStoreBundleID = OptionKey<String?>("--appstore-bundle-id", value: "id", help: "The app's bundle id; POST /v1/webhooks/appstore accepts only its notifications.")
    static let appStoreEnvironment = OptionKey<String>("--appstore-environment", value: "env", help: "Which App Store environment's notifications are stored; the other's answer 200 ignored.",
                                                       choices: ["production", "sandbox"], default: "production")
    static let stripeSecret = OptionKey<[String]>("--stripe-secret", value: "whsec",
        help: "A Stripe endpoint signing secret for POST /v1/webhooks/stripe (repeatable while rolling one; or ABCTL_STRIPE_SECRETS, comma-separated).",
        environment: "ABCTL_STRIPE_SECRETS")
    static let stripeTolerance = OptionKey<Int>("--stripe-tolerance-s", value: "seconds",
        help: "Oldest Stripe signature timestamp accepted, in seconds (0: no limit, as in Stripe's libraries).", range: 0...86_400, default: 300)
    static let googleCerts = OptionKey<String?>("--google-certs", value: "file",
        help: "Google's public keys for Pub/Sub push tokens (the JWKS of googleapis.com/oauth2/v3/certs or the key id -> PEM map of /oauth2/v1/certs); reread on SIGHUP.")
    static let googlePlayAudience = OptionKey<String?>("--googleplay-audience", value: "aud", help: "The audience set on the Pub/Sub push subscription; tokens must carry it.")
    static let googlePlayPushAccount = OptionKey<String?>("--googleplay-push-account", value: "email",
        help: "The service account the push subscription authenticates as; tokens must carry its verified email.")
    static let googlePlayPackage = OptionKey<String?>("--googleplay-package", value: "name", help: "The app's package name; notifications for others are refused.")
    static let googlePlayServiceAccount = OptionKey<String?>("--googleplay-service-account", value: "file",
        help: "A service-account key (JSON) allowed to read the app's purchases (purchases.subscriptionsv2.get).")
    static let googlePlayAPIURL = OptionKey<String>("--googleplay-api-url", value: "url", help: "The Google Play Developer API root.", default: "https://androidpublisher.googleapis.com")
    static let notifyURL = OptionKey<[String]>("--notify-url", value: "url",
        help: "Receives a POST of JSON for each notification (stops, resets, decisions, sample ratio mismatches, silence, past end), once each, retried until a 2xx (repeatable; or ABCTL_NOTIFY_URLS, comma-separated; slack+https://… posts {\"text\"}).",
        environment: "ABCTL_NOTIFY_URLS")
    static let notifyFormat = OptionKey<String>("--notify-format", value: "format",
        help: "json: {id, type, experiment, at, text, url, details}; slack: {text} with the link, for a chat's incoming webhook.",
        choices: ["json", "slack"], default: "json")
    static let publicURL = OptionKey<String?>("--public-url", value: "url",
        help: "The address people reach the console at; each notification links to its experiment's page under it.")
}

private extension SettingSpec {
    static let apiKeys = SettingSpec("ABCTL_API_KEYS", .secret, help: "API keys, 'KEY:scope,scope[:NAME]' separated by ';' (or --keys-file).")
    static let revenueCatAuth = SettingSpec("ABCTL_REVENUECAT_AUTH", .secret, help: "The exact Authorization header RevenueCat sends to the webhook.")
    static let llmAPIKey = SettingSpec("ABCTL_LLM_API_KEY", .secret, help: "The key of the --llm-url endpoint.")
    static let notifySecret = SettingSpec("ABCTL_NOTIFY_SECRET", .secret, help: "Signs each notification POST (Abctl-Signature: t=UNIX,v1=HMAC-SHA256 of t.body).")
}
