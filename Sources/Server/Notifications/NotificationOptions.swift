import Foundation

/// What `abctl serve` sends notifications with (`--notify-url`, `--notify-format`, `--public-url`,
/// `ABCTL_NOTIFY_SECRET`) and the delivery schedule, which tests shorten.
public struct NotificationOptions: Sendable {
    public var targets: [NotificationTarget]
    /// The address people reach the console at; each notification's `url` is under it.
    public var publicURL: URL?
    /// Signs every POST (`Abctl-Signature`) when set.
    public var secret: [UInt8]?
    /// The limit of one try.
    public var tryTimeoutSeconds: Double
    /// How long the sending node claims a notification for.
    public var claimSeconds: Double
    public var backoff: NotificationBackoff
    /// How often the conditions (verdicts, sample ratio, silence, end dates) are looked at.
    public var conditionSeconds: Double
    /// How long a running experiment may go without an exposure before `no_data`.
    public var noDataSeconds: Double

    public init(targets: [NotificationTarget] = [], publicURL: URL? = nil, secret: [UInt8]? = nil, tryTimeoutSeconds: Double = 10,
                claimSeconds: Double = 30, backoff: NotificationBackoff = .init(), conditionSeconds: Double = 60,
                noDataSeconds: Double = 86_400) {
        self.targets = targets
        self.publicURL = publicURL
        self.secret = secret
        self.tryTimeoutSeconds = tryTimeoutSeconds
        self.claimSeconds = claimSeconds
        self.backoff = backoff
        self.conditionSeconds = conditionSeconds
        self.noDataSeconds = noDataSeconds
    }
}
