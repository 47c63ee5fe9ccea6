import Foundation

/// How an `AbctlClient` reaches the server, where it keeps its files, and how long it waits.
public struct ClientConfiguration: Sendable {
    /// The root of `abctl serve`, e.g. `https://abctl.example.com`.
    public var serverURL: URL
    /// Sent as `Authorization: Bearer KEY`. An app build carries an `app` key (set `isAppKey`); a
    /// key with `assign` and `ingest` is for a server or a tool of your own, never for an app.
    public var apiKey: String?
    /// The key is an `app` key (the one an app build carries): the client queues exposures
    /// only and refuses a purchase at once, so nothing it queued can be lost to the server's 403.
    /// Purchases then come from the store webhooks.
    public var isAppKey: Bool
    /// Where the assignment cache and the event queue live (created when missing). An app uses a
    /// folder of its Application Support directory, which survives restarts and updates.
    public var storageDirectory: URL
    /// Shown when neither the server nor the cache can answer, for experiments without their own default.
    public var defaultPaywall: ResolvedPaywall
    /// Per-experiment defaults bundled with the app, by experiment id.
    public var defaultPaywalls: [String: ResolvedPaywall]
    /// Each placement's default bundled with the app (the `default` of placements.json), by
    /// placement id; a nil value shows no paywall. A placement not listed gets `defaultPaywall`.
    public var placementDefaults: [String: ResolvedPaywall?]
    /// The longest `paywall(for:)` waits for `POST /v1/assign` before answering from the cache.
    public var assignDeadline: Duration
    /// After a failed assign call, how long `paywall(for:)` answers from the cache at once without
    /// asking the server: while the device is offline, no paywall waits out the deadline.
    public var retryAfter: Duration
    /// The app's on-device model for `ai_generated` copy; nil ships the fallback (`no_model`).
    public var model: (any CopyModel)?
    /// The longest one line may take, both attempts included.
    public var copyDeadline: Duration
    /// Events kept on disk at most; what arrives when the queue is full is dropped and counted.
    public var queueCapacity: Int
    /// Events per `POST /v1/events`.
    public var batchSize: Int
    /// Waits between failed sends grow from `initialBackoff`, doubling, up to `maxBackoff`.
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// The longest one `POST /v1/events` may take.
    public var sendTimeout: Duration
    /// When true, queued events are sent in the background as they arrive; when false only `flush()` sends.
    public var sendsAutomatically: Bool
    /// How long a cached answer may stand in for the server's: past it, an offline
    /// device shows the bundled default instead of an arm that may have been stopped since.
    /// An answer that says the experiment is `not_running`, `shipped` or stopped by a
    /// `safeguard` expires every cached answer for that experiment at once.
    public var cacheLifetime: Duration
    /// Hears 401s and 403s (with the scope the key lacks) and clock corrections; see `ClientLogger`.
    public var logger: ClientLogger
    /// The device's clock: timestamps of events, ages of cached answers. Tests set it.
    public var clock: @Sendable () -> Date

    public init(serverURL: URL, apiKey: String? = nil, storageDirectory: URL, defaultPaywall: ResolvedPaywall,
                defaultPaywalls: [String: ResolvedPaywall] = [:], placementDefaults: [String: ResolvedPaywall?] = [:],
                isAppKey: Bool = false, assignDeadline: Duration = .milliseconds(800),
                retryAfter: Duration = .seconds(10), model: (any CopyModel)? = nil, copyDeadline: Duration = .milliseconds(1500),
                queueCapacity: Int = 10_000, batchSize: Int = 100, initialBackoff: Duration = .milliseconds(500),
                maxBackoff: Duration = .seconds(60), sendTimeout: Duration = .seconds(10), sendsAutomatically: Bool = true,
                cacheLifetime: Duration = .seconds(24 * 3600), logger: @escaping ClientLogger = ClientConfiguration.standardErrorLogger,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.storageDirectory = storageDirectory
        self.defaultPaywall = defaultPaywall
        self.defaultPaywalls = defaultPaywalls
        self.placementDefaults = placementDefaults
        self.isAppKey = isAppKey
        self.assignDeadline = assignDeadline
        self.retryAfter = retryAfter
        self.model = model
        self.copyDeadline = copyDeadline
        self.queueCapacity = queueCapacity
        self.batchSize = batchSize
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.sendTimeout = sendTimeout
        self.sendsAutomatically = sendsAutomatically
        self.cacheLifetime = cacheLifetime
        self.logger = logger
        self.clock = clock
    }
}
