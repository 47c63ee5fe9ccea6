import ExperimentDefinitions
import Foundation
import Server

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
        """,
        usage: "--port <port> [--host <host>] [--db <path>] [--experiments <dir>] [--keys-file <file>] [--max-body <bytes>] [--threads <n>] [--llm-url <url> --llm-model <name> [--llm-deadline-ms <ms>] [--llm-retry-after-s <seconds>]]",
        options: [
            OptionSpec(name: "--port", valueName: "port", help: "TCP port; 0 picks a free one and prints it."),
            OptionSpec(name: "--host", valueName: "host", help: "Address to listen on (default: 127.0.0.1)."),
            OptionSpec(name: "--db", valueName: "path", help: "The event store: a SQLite file (default: abctl.sqlite, or ABCTL_DB) or a postgres:// URL."),
            OptionSpec(name: "--experiments", valueName: "dir", help: "Experiment files (default: Experiments/, or ABCTL_EXPERIMENTS)."),
            OptionSpec(name: "--keys-file", valueName: "file", help: "API keys, one 'KEY scope,scope' a line (instead of ABCTL_API_KEYS)."),
            OptionSpec(name: "--max-body", valueName: "bytes", help: "Largest request body accepted (default: 16777216); larger gets 413."),
            OptionSpec(name: "--threads", valueName: "n", help: "Server threads, each with its own epoll set (default: 2 per core, at least 4)."),
            OptionSpec(name: "--max-connections", valueName: "n", help: "Open connections at most (default: 1000)."),
            OptionSpec(name: "--timeout", valueName: "seconds", help: "Idle connections and slow request bodies are cut off after this long (default: 30)."),
            OptionSpec(name: "--llm-url", valueName: "url", help: "An OpenAI-compatible server (e.g. http://127.0.0.1:8080) that writes AI copy for devices with no model."),
            OptionSpec(name: "--llm-model", valueName: "name", help: "The model --llm-url should use."),
            OptionSpec(name: "--llm-deadline-ms", valueName: "ms", help: "Longest an assign call waits for a generated line before the fallback ships (default: 300)."),
            OptionSpec(name: "--llm-retry-after-s", valueName: "seconds", help: "After a failed generation, its brief ships the fallback at once for this long (default: 30; 0 asks again on the next call)."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) throws -> ExitCode {
        guard let port = try args.int("--port") else { throw CLIError.usage("missing required option '--port'", command: "serve") }
        guard (0...65535).contains(port) else { throw CLIError.usage("'--port' must be between 0 and 65535, got \(port)", command: "serve") }
        let maxBody = try args.int("--max-body") ?? 16 << 20
        guard maxBody > 0 else { throw CLIError.usage("'--max-body' must be positive", command: "serve") }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threads = try args.int("--threads") ?? max(4, 2 * cores)
        guard (1...256).contains(threads) else { throw CLIError.usage("'--threads' must be between 1 and 256", command: "serve") }
        let connections = try args.int("--max-connections") ?? 1000
        guard connections > 0 else { throw CLIError.usage("'--max-connections' must be positive", command: "serve") }
        let timeout = try args.int("--timeout") ?? 30
        guard timeout > 0 else { throw CLIError.usage("'--timeout' must be positive", command: "serve") }

        let keys = try loadKeys(file: args.value("--keys-file"))
        let environment = ProcessInfo.processInfo.environment
        let copyGeneration = try copyGenerationOptions(args, environment: environment)
        let revenueCat = environment["ABCTL_REVENUECAT_AUTH"].flatMap { $0.isEmpty ? nil : $0 }

        let store = try StoreOpener.open(Defaults.database(args.value("--db")), .init(readers: threads + 2))
        defer { store.close() }
        let configuration = Server.Configuration(
            http: HTTPDaemon.Configuration(host: args.value("--host") ?? "127.0.0.1", port: UInt16(port), threads: threads,
                                           maxBodyBytes: maxBody, idleTimeoutSeconds: timeout,
                                           requestTimeoutSeconds: Double(timeout), connectionLimit: connections),
            api: APIServer.Options(keys: keys, revenueCatAuthorization: revenueCat,
                                   experimentsDirectory: Defaults.experimentsDirectory(args.value("--experiments")),
                                   copyGeneration: copyGeneration),
            store: store)
        do {
            let server = try Server(configuration: configuration)
            try server.run { port in
                let host = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
                FileHandle.standardOutput.write(Data("abctl: listening on http://\(host):\(port)\n".utf8))
            }
        } catch .configuration(let message) {
            throw CLIError.usage(message, command: "serve")
        } catch .runtime(let message) {
            throw CLIError.runtime(message)
        }
        return .success
    }

    /// `--llm-url` and `--llm-model` go together; without them there is no server-side generation.
    static func copyGenerationOptions(_ args: ParsedArguments, environment: [String: String]) throws -> CopyGenerationOptions? {
        let url = args.value("--llm-url"), model = args.value("--llm-model")
        let deadline = try args.int("--llm-deadline-ms"), retryAfter = try args.int("--llm-retry-after-s")
        guard let url else {
            let orphan = model != nil ? "--llm-model" : deadline != nil ? "--llm-deadline-ms" : retryAfter != nil ? "--llm-retry-after-s" : nil
            if let orphan { throw CLIError.usage("'\(orphan)' needs '--llm-url'", command: "serve") }
            return nil
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
            throw CLIError.usage("'--llm-url' must be an http or https URL, got '\(url)'", command: "serve")
        }
        guard let model, !model.isEmpty else { throw CLIError.usage("'--llm-url' needs '--llm-model'", command: "serve") }
        let milliseconds = deadline ?? 300
        guard (1...60_000).contains(milliseconds) else {
            throw CLIError.usage("'--llm-deadline-ms' must be between 1 and 60000, got \(milliseconds)", command: "serve")
        }
        let retrySeconds = retryAfter ?? 30
        guard (0...86_400).contains(retrySeconds) else {
            throw CLIError.usage("'--llm-retry-after-s' must be between 0 and 86400, got \(retrySeconds)", command: "serve")
        }
        let apiKey = environment["ABCTL_LLM_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        return CopyGenerationOptions(url: parsed, model: model, apiKey: apiKey, deadline: .milliseconds(milliseconds),
                                     retryAfter: .seconds(retrySeconds))
    }

    static func loadKeys(file: String?) throws -> APIKeys {
        do {
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CLIError.usage("cannot read --keys-file '\(file)'", command: "serve")
                }
                return try APIKeys.parse(file: String(decoding: data, as: UTF8.self), name: file)
            }
            if let text = ProcessInfo.processInfo.environment["ABCTL_API_KEYS"], !text.isEmpty {
                return try APIKeys.parse(environment: text)
            }
            return .none
        } catch let error as APIKeys.ConfigurationError {
            throw CLIError.usage(error.description, command: "serve")
        }
    }
}
