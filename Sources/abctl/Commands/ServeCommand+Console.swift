import CommandLineKit
import HTTPTransport
import Server

/// `abctl serve`'s console settings: `--session-hours`, `--console-insecure-cookie` (refused
/// unless `--host` is loopback), `--trusted-proxy`, `--console-refresh-s` and `ABCTL_SESSION_SECRET`.
extension ServeCommand {
    static func consoleOptions(_ args: ParsedArguments, host: String) throws -> ConsoleOptions {
        var options = ConsoleOptions()
        options.sessionHours = args[.sessionHours]
        options.refreshSeconds = args[.consoleRefresh]
        if args[.consoleInsecureCookie] {
            guard let address = Listener.Address(host: host), address.isLoopback else {
                throw CLIError.usage("'--console-insecure-cookie' is refused unless --host is loopback (127.0.0.1, ::1 or localhost), got '\(host)'",
                                     command: "serve")
            }
            options.insecureCookie = true
        }
        if let proxy = args[.trustedProxy] {
            do {
                options.trustedProxy = try ConsoleOptions.trustedProxy(proxy)
            } catch {
                throw CLIError.usage(error.description, command: "serve")
            }
        }
        if let secret = args.setting(.sessionSecret) {
            do {
                options.sessionSecret = try ConsoleOptions.secret(environment: secret)
            } catch {
                throw CLIError.usage(error.description, command: "serve")
            }
        }
        return options
    }
}

extension OptionKeys {
    static let sessionHours = OptionKey<Int>("--session-hours", value: "hours", help: "A console session ends this long after its sign-in.",
                                             range: 1...8760, default: 12)
    static let trustedProxy = OptionKey<String?>("--trusted-proxy", value: "address",
                                                 help: "The proxy in front of the console: failed sign-ins from it are counted under the client address its X-Forwarded-For names.")
    static let consoleRefresh = OptionKey<Double>("--console-refresh-s", value: "seconds",
                                                  help: "The console's stored reports are computed again after new events, at most this often.",
                                                  range: 0.1...86_400, default: 60)
    static let consoleInsecureCookie = OptionKey<Bool>(flag: "--console-insecure-cookie",
                                                       help: "The console's cookie without Secure, for plain HTTP; refused unless --host is loopback.")
}

extension SettingSpec {
    static let sessionSecret = SettingSpec("ABCTL_SESSION_SECRET", .secret,
                                           help: "The console's secret (at least 32 bytes); without it one is generated once and kept in the store.")
}
