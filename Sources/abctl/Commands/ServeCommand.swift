import CommandLineKit
import ExperimentDefinitions
import Foundation
import HTTPTransport
import Server
import Webhooks

/// `abctl serve`: the HTTP API of SPEC §7.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the HTTP API: assignment, events, webhooks, reports.",
        discussion: """
        Serve the HTTP API of SPEC §7 on libmicrohttpd. API keys come from ABCTL_API_KEYS
          (KEY:scope,scope;KEY2:scope) or --keys-file (one 'KEY scope,scope' a line); scopes are
          assign, ingest and admin. Without keys the server listens on loopback only. The RevenueCat
          webhook checks its Authorization header against ABCTL_REVENUECAT_AUTH.
          SIGHUP reloads the experiment files (a broken folder keeps the old ones); SIGTERM drains
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
          reads the stops in force every 2 s. With --notify-url each stop is POSTed there as JSON.
        """,
        options: [
            OptionSpec(name: "--port", valueName: "port", help: "TCP port; 0 picks a free one and prints it.", type: .integer(0...65535), required: true),
            OptionSpec(name: "--host", valueName: "host", help: "Address to listen on.", default: "127.0.0.1"),
            .database,
            .experiments,
            OptionSpec(name: "--keys-file", valueName: "file", help: "API keys, one 'KEY scope,scope' a line (instead of ABCTL_API_KEYS)."),
            OptionSpec(name: "--max-body", valueName: "bytes", help: "Largest request body accepted; larger gets 413.", type: .positiveInteger, default: "16777216"),
            OptionSpec(name: "--threads", valueName: "n", help: "Server threads, each with its own epoll set (default: 2 per core, at least 4).", type: .integer(1...256)),
            OptionSpec(name: "--max-connections", valueName: "n", help: "Open connections at most (default: 16000, or fewer if the open-file limit allows fewer); past it new connections are closed at once.",
                       type: .positiveInteger),
            OptionSpec(name: "--max-connections-per-ip", valueName: "n", help: "Open connections at most from one client address (0: no limit; behind a load balancer every connection has its address).",
                       type: .integer(0...Int.max), default: "0"),
            OptionSpec(name: "--timeout", valueName: "seconds", help: "Kept-alive connections with nothing arriving are closed after this long.", type: .positiveInteger, default: "30"),
            OptionSpec(name: "--header-timeout", valueName: "seconds", help: "The request line and headers must arrive within this long, or 408 and close.",
                       type: .number(0.001...86_400), default: "10"),
            OptionSpec(name: "--body-timeout", valueName: "seconds", help: "A body must arrive within this long plus its size at --min-rate, or 408 and close.",
                       type: .number(0.001...86_400), default: "10"),
            OptionSpec(name: "--write-timeout", valueName: "seconds", help: "An answer must be read within this long plus its size at --min-rate, or the connection closes.",
                       type: .number(0.001...86_400), default: "10"),
            OptionSpec(name: "--min-rate", valueName: "bytes", help: "Slowest transfer, in bytes per second, that body and answer deadlines allow for.",
                       type: .positiveInteger, default: "16384"),
            OptionSpec(name: "--llm-url", valueName: "url", help: "An OpenAI-compatible server (e.g. http://127.0.0.1:8080) that writes AI copy for devices with no model."),
            OptionSpec(name: "--llm-model", valueName: "name", help: "The model --llm-url should use."),
            OptionSpec(name: "--llm-deadline-ms", valueName: "ms", help: "Longest an assign call waits for a generated line before the fallback ships.",
                       type: .integer(1...60_000), default: "300"),
            OptionSpec(name: "--llm-retry-after-s", valueName: "seconds", help: "After a failed generation, its brief ships the fallback at once for this long (0 asks again on the next call).",
                       type: .integer(0...86_400), default: "30"),
            OptionSpec(name: "--appstore-root-ca", valueName: "file", help: "A root certificate (PEM or DER) App Store notifications must chain to (repeatable; Apple Root CA - G3 in production).", repeatable: true),
            OptionSpec(name: "--appstore-bundle-id", valueName: "id", help: "The app's bundle id; POST /v1/webhooks/appstore accepts only its notifications."),
            OptionSpec(name: "--appstore-environment", valueName: "env", help: "Which App Store environment's notifications are stored; the other's answer 200 ignored.",
                       choices: ["production", "sandbox"], default: "production"),
            OptionSpec(name: "--stripe-secret", valueName: "whsec", help: "A Stripe endpoint signing secret for POST /v1/webhooks/stripe (repeatable while rolling one; or ABCTL_STRIPE_SECRETS, comma-separated).",
                       repeatable: true, environment: "ABCTL_STRIPE_SECRETS"),
            OptionSpec(name: "--stripe-tolerance-s", valueName: "seconds", help: "Oldest Stripe signature timestamp accepted, in seconds (0: no limit, as in Stripe's libraries).",
                       type: .integer(0...86_400), default: "300"),
            OptionSpec(name: "--google-certs", valueName: "file", help: "Google's public keys for Pub/Sub push tokens (the JWKS of googleapis.com/oauth2/v3/certs or the key id -> PEM map of /oauth2/v1/certs); reread on SIGHUP."),
            OptionSpec(name: "--googleplay-audience", valueName: "aud", help: "The audience set on the Pub/Sub push subscription; tokens must carry it."),
            OptionSpec(name: "--googleplay-push-account", valueName: "email", help: "The service account the push subscription authenticates as; tokens must carry its verified email."),
            OptionSpec(name: "--googleplay-package", valueName: "name", help: "The app's package name; notifications for others are refused."),
            OptionSpec(name: "--googleplay-service-account", valueName: "file", help: "A service-account key (JSON) allowed to read the app's purchases (purchases.subscriptionsv2.get)."),
            OptionSpec(name: "--googleplay-api-url", valueName: "url", help: "The Google Play Developer API root.", default: "https://androidpublisher.googleapis.com"),
            OptionSpec(name: "--notify-url", valueName: "url", help: "Each safeguard stop is POSTed here as JSON with a readable 'text' (a chat webhook can post it), retried with backoff until a 2xx answer, once per stop."),
        ],
        settings: [
            .now,
            SettingSpec("ABCTL_API_KEYS", .secret, help: "API keys, 'KEY:scope,scope' separated by ';' (or --keys-file)."),
            SettingSpec("ABCTL_REVENUECAT_AUTH", .secret, help: "The exact Authorization header RevenueCat sends to the webhook."),
            SettingSpec("ABCTL_LLM_API_KEY", .secret, help: "The key of the --llm-url endpoint."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        let port = try args.required(int: "--port"), maxBody = try args.required(int: "--max-body")
        // The one default that depends on the machine.
        let threads = try args.int("--threads") ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
        let connections = try args.int("--max-connections"), perIP = try args.required(int: "--max-connections-per-ip")
        let timeout = try args.required(int: "--timeout"), minRate = try args.required(int: "--min-rate")
        let headTimeout = try args.required(double: "--header-timeout"), bodyTimeout = try args.required(double: "--body-timeout")
        let writeTimeout = try args.required(double: "--write-timeout")
        let host = try args.required("--host"), experiments = try args.required("--experiments"), database = try args.required("--db")

        let environment = Environment.process
        let keys = try loadKeys(file: args.value("--keys-file"), environment: environment)
        let copyGeneration = try copyGenerationOptions(args, environment: environment)
        let revenueCat = environment["ABCTL_REVENUECAT_AUTH"]
        let appStore = try appStoreOptions(args)
        let stripe = try stripeOptions(args)
        let googlePlay = try googlePlayOptions(args)
        let reportClock = FixedClock.now(args)
        var notifyURL: URL?
        if let text = args.value("--notify-url") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw CLIError.usage("'--notify-url' must be an http or https URL, got '\(text)'", command: "serve")
            }
            notifyURL = url
        }
        do {
            try Server.checkListening(host: host, keys: keys)
        } catch {
            throw CLIError.usage(error.description, command: "serve")
        }

        let store = try StoreOpener.open(database, .init(readers: threads + 2))
        defer { store.close() }
        let configuration = Server.Configuration(
            http: HTTPDaemon.Configuration(host: host, port: UInt16(port), threads: threads,
                                           maxBodyBytes: maxBody, idleTimeoutSeconds: timeout,
                                           headTimeoutSeconds: headTimeout, bodyTimeoutSeconds: bodyTimeout,
                                           writeTimeoutSeconds: writeTimeout, minBytesPerSecond: minRate,
                                           connectionLimit: connections, maxConnectionsPerIP: perIP),
            api: APIServer.Options(keys: keys, revenueCatAuthorization: revenueCat,
                                   experimentsDirectory: experiments,
                                   copyGeneration: copyGeneration, appStore: appStore, reportClock: reportClock,
                                   stripe: stripe, googlePlay: googlePlay,
                                   safeguards: SafeguardService.Options(notifyURL: notifyURL, clock: reportClock)),
            store: store)
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
    static func copyGenerationOptions(_ args: ParsedArguments, environment: Environment) throws -> CopyGenerationOptions? {
        let url = args.value("--llm-url"), model = args.value("--llm-model")
        guard let url else {
            let orphan = ["--llm-model", "--llm-deadline-ms", "--llm-retry-after-s"].first { args.source($0) == .commandLine }
            if let orphan { throw CLIError.usage("'\(orphan)' needs '--llm-url'", command: "serve") }
            return nil
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            throw CLIError.usage("'--llm-url' must be an http or https URL, got '\(url)'", command: "serve")
        }
        guard let model, !model.isEmpty else { throw CLIError.usage("'--llm-url' needs '--llm-model'", command: "serve") }
        let milliseconds = try args.required(int: "--llm-deadline-ms"), retrySeconds = try args.required(int: "--llm-retry-after-s")
        let apiKey = environment["ABCTL_LLM_API_KEY"]
        return CopyGenerationOptions(url: parsed, model: model, apiKey: apiKey, deadline: .milliseconds(milliseconds),
                                     retryAfter: .seconds(retrySeconds))
    }

    /// `--appstore-root-ca` (repeatable) and `--appstore-bundle-id` go together; without them the webhook is off.
    static func appStoreOptions(_ args: ParsedArguments) throws -> AppStoreOptions? {
        let files = args.all("--appstore-root-ca"), bundle = args.value("--appstore-bundle-id")
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
                                   environment: args.value("--appstore-environment") == "sandbox" ? "Sandbox" : "Production")
        } catch {
            throw CLIError.usage("--appstore-root-ca: \(error.description)", command: "serve")
        }
    }

    /// `--stripe-secret` (repeatable) or `ABCTL_STRIPE_SECRETS` (comma-separated); none: the webhook is off.
    static func stripeOptions(_ args: ParsedArguments) throws -> StripeOptions? {
        var secrets = args.all("--stripe-secret")
        if case .environment? = args.source("--stripe-secret") {
            secrets = secrets.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        secrets = secrets.filter { !$0.isEmpty }
        guard !secrets.isEmpty else {
            if args.source("--stripe-tolerance-s") == .commandLine { throw CLIError.usage("'--stripe-tolerance-s' needs '--stripe-secret'", command: "serve") }
            return nil
        }
        return StripeOptions(signature: StripeSignature(secrets: secrets, toleranceSeconds: try args.required(int: "--stripe-tolerance-s")))
    }

    /// The Google Play flags go together: all five, or none (the webhook is then off).
    static func googlePlayOptions(_ args: ParsedArguments) throws -> GooglePlayOptions? {
        let names = ["--google-certs", "--googleplay-audience", "--googleplay-push-account", "--googleplay-package", "--googleplay-service-account"]
        let given = names.filter { args.value($0) != nil }
        if given.isEmpty {
            if args.source("--googleplay-api-url") == .commandLine { throw CLIError.usage("'--googleplay-api-url' needs the other --googleplay flags", command: "serve") }
            return nil
        }
        if let missing = names.first(where: { args.value($0) == nil }) {
            throw CLIError.usage("'\(given[0])' needs '\(missing)' (the Google Play webhook takes \(names.joined(separator: ", ")))", command: "serve")
        }
        func read(_ flag: String) throws -> [UInt8] {
            let path = args.value(flag)!
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.usage("cannot read \(flag) '\(path)'", command: "serve") }
            return [UInt8](data)
        }
        let certsPath = args.value("--google-certs")!
        let apiText = try args.required("--googleplay-api-url")
        guard let apiURL = URL(string: apiText), ["http", "https"].contains(apiURL.scheme?.lowercased() ?? ""), apiURL.host != nil else {
            throw CLIError.usage("'--googleplay-api-url' must be an http or https URL, got '\(apiText)'", command: "serve")
        }
        do {
            let verifier = try GooglePushVerifier(certificates: try read("--google-certs"), audience: args.value("--googleplay-audience")!,
                                                  account: args.value("--googleplay-push-account")!)
            let key = try ServiceAccountKey(file: try read("--googleplay-service-account"))
            let api = GooglePlayAPI(baseURL: apiURL, packageName: args.value("--googleplay-package")!, key: key, transport: URLSessionTransport())
            return GooglePlayOptions(verifier: verifier, certificatesPath: certsPath, api: api)
        } catch let error as GooglePushVerifier.ConfigurationError {
            throw CLIError.usage("--google-certs: \(error.description)", command: "serve")
        } catch let error as ServiceAccountKey.ConfigurationError {
            throw CLIError.usage("--googleplay-service-account: \(error.description)", command: "serve")
        }
    }

    static func loadKeys(file: String?, environment: Environment) throws -> APIKeys {
        do {
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CLIError.usage("cannot read --keys-file '\(file)'", command: "serve")
                }
                return try APIKeys.parse(file: String(decoding: data, as: UTF8.self), name: file)
            }
            if let text = environment["ABCTL_API_KEYS"] {
                return try APIKeys.parse(environment: text)
            }
            return .none
        } catch let error as APIKeys.ConfigurationError {
            throw CLIError.usage(error.description, command: "serve")
        }
    }
}
