import Glibc
import Synchronization

/// Counters and histograms for `GET /metrics`, in Prometheus text format 0.0.4.
public final class Metrics: Sendable {
    /// Upper bounds, in seconds, of the request latency histogram.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct WebhookKey: Hashable {
        var outcome: String
        var type: String
    }

    struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.latencyBuckets.count)
        var sum = 0.0
        var count = 0

        mutating func observe(_ seconds: Double) {
            sum += seconds
            count += 1
            // Stored per bucket (not cumulative); `render` accumulates.
            if let i = Metrics.latencyBuckets.firstIndex(where: { seconds <= $0 }) { counts[i] += 1 }
        }

        mutating func add(_ other: Histogram) {
            sum += other.sum
            count += other.count
            for i in counts.indices { counts[i] += other.counts[i] }
        }
    }

    /// One route's counts: a request costs a short scan of the (method, status) pairs seen on it.
    struct RouteStats {
        var latency = Histogram()
        var answers: [(method: String, status: Int, count: Int)] = []

        mutating func record(method: String, status: Int, seconds: Double) {
            latency.observe(seconds)
            count(method: method, status: status, n: 1)
        }

        mutating func add(_ other: RouteStats) {
            latency.add(other.latency)
            for a in other.answers { count(method: a.method, status: a.status, n: a.count) }
        }

        private mutating func count(method: String, status: Int, n: Int) {
            if let i = answers.firstIndex(where: { $0.status == status && $0.method == method }) {
                answers[i].count += n
            } else {
                answers.append((method, status, n))
            }
        }
    }

    /// Request counts by route pattern, in the order first seen. A list: there are a dozen
    /// patterns, and comparing short strings costs less than hashing one.
    final class Shard: Sendable {
        let routes = Mutex<[(route: String, stats: RouteStats)]>([])
    }

    /// Server threads record into shards picked by thread, so that they rarely wait on each
    /// other's lock; `render` adds the shards up.
    private let shards = (0..<8).map { _ in Shard() }
    private let webhooks = Mutex<[WebhookKey: Int]>([:])
    private let appStoreNotifications = Mutex<[WebhookKey: Int]>([:])
    private let stripeEvents = Mutex<[WebhookKey: Int]>([:])
    private let googlePlayNotifications = Mutex<[WebhookKey: Int]>([:])
    private let eventsStored = Atomic<Int>(0)
    private let eventsDuplicate = Atomic<Int>(0)
    private let eventsRejected = Atomic<Int>(0)
    private let eventsIgnored = Atomic<Int>(0)
    /// Store payments whose account no exposure named yet (`unmatched_store_payments`).
    private let unmatchedStorePayments = Atomic<Int>(0)
    private let reloadsOK = Atomic<Int>(0)
    private let reloadsFailed = Atomic<Int>(0)

    public init() {}

    public func request(route: String, method: String, status: Int, seconds: Double) {
        let thread = UInt64(UInt(bitPattern: Int(bitPattern: pthread_self())))
        shards[Int(truncatingIfNeeded: (thread &* 0x9E37_79B9_7F4A_7C15) >> 61)].routes.withLock { routes in
            if let i = routes.firstIndex(where: { $0.route == route }) {
                routes[i].stats.record(method: method, status: status, seconds: seconds)
            } else {
                var stats = RouteStats()
                stats.record(method: method, status: status, seconds: seconds)
                routes.append((route, stats))
            }
        }
    }

    /// Every shard's counts, added up by route.
    private func routeTotals() -> [String: RouteStats] {
        var totals: [String: RouteStats] = [:]
        for shard in shards {
            for (route, stats) in shard.routes.withLock({ $0 }) { totals[route, default: RouteStats()].add(stats) }
        }
        return totals
    }

    public func events(stored: Int, duplicate: Int, rejected: Int, ignored: Int = 0) {
        if ignored > 0 { eventsIgnored.add(ignored, ordering: .relaxed) }
        if stored > 0 { eventsStored.add(stored, ordering: .relaxed) }
        if duplicate > 0 { eventsDuplicate.add(duplicate, ordering: .relaxed) }
        if rejected > 0 { eventsRejected.add(rejected, ordering: .relaxed) }
    }

    /// A stored payment from a store webhook whose account no exposure had named.
    public func unmatchedStorePayment() { unmatchedStorePayments.add(1, ordering: .relaxed) }

    public func reload(succeeded: Bool) {
        if succeeded { reloadsOK.add(1, ordering: .relaxed) } else { reloadsFailed.add(1, ordering: .relaxed) }
    }

    public var reloads: (succeeded: Int, failed: Int) {
        (reloadsOK.load(ordering: .relaxed), reloadsFailed.load(ordering: .relaxed))
    }

    public enum WebhookOutcome: String, Sendable {
        /// Mapped and stored; `type` is the event type it became.
        case mapped
        /// Mapped, but its id was already stored (a RevenueCat retry).
        case duplicate
        /// A RevenueCat type the project does not use; `type` is RevenueCat's.
        case ignored
        /// Verified, but naming no user (Stripe without `metadata.abctl_user_id`, a refund of a
        /// payment abctl never saw): answered `ignored`.
        case noUser = "no_user"
        /// A refund whose amount was already counted: answered `ignored`.
        case alreadyCounted = "already_counted"
    }

    /// One RevenueCat webhook event.
    public func webhook(type: String, outcome: WebhookOutcome) {
        // RevenueCat's type names are a short fixed list, but a client could send anything: cap the label set.
        webhooks.withLock { counts in
            let key = WebhookKey(outcome: outcome.rawValue, type: counts.count < 64 || counts[WebhookKey(outcome: outcome.rawValue, type: type)] != nil ? type : "other")
            counts[key, default: 0] += 1
        }
    }

    /// One App Store notification that passed verification (`type` as for `webhook`; ignored
    /// types are Apple's `notificationType.subtype`).
    public func appStore(type: String, outcome: WebhookOutcome) {
        appStoreNotifications.withLock { counts in
            let key = WebhookKey(outcome: outcome.rawValue, type: counts.count < 64 || counts[WebhookKey(outcome: outcome.rawValue, type: type)] != nil ? type : "other")
            counts[key, default: 0] += 1
        }
    }

    /// One verified Stripe event (`type` the event type it became, or Stripe's when not mapped).
    public func stripe(type: String, outcome: WebhookOutcome) {
        Self.count(stripeEvents, type: type, outcome: outcome)
    }

    /// One verified Google Play notification (`type` the event type it became, or Play's when not mapped).
    public func googlePlay(type: String, outcome: WebhookOutcome) {
        Self.count(googlePlayNotifications, type: type, outcome: outcome)
    }

    /// Adds one to (outcome, type), with at most 64 label pairs: a client could send any type.
    private static func count(_ counts: borrowing Mutex<[WebhookKey: Int]>, type: String, outcome: WebhookOutcome) {
        counts.withLock { counts in
            let key = WebhookKey(outcome: outcome.rawValue, type: counts.count < 64 || counts[WebhookKey(outcome: outcome.rawValue, type: type)] != nil ? type : "other")
            counts[key, default: 0] += 1
        }
    }

    /// One webhook counter's exposition lines, sorted by outcome and type.
    private static func counter(_ name: String, _ help: String, _ counts: [WebhookKey: Int]) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        for (key, n) in counts.sorted(by: { ($0.key.outcome, $0.key.type) < ($1.key.outcome, $1.key.type) }) {
            out += "\(name){outcome=\"\(key.outcome)\",type=\"\(escape(key.type))\"} \(n)\n"
        }
        return out
    }

    /// The exposition text. `gauges` are extra `(name, help, value)` lines.
    public func render(gauges: [(String, String, Double)] = []) -> String {
        let routes = routeTotals()
        var out = ""
        out += "# HELP abctl_http_requests_total HTTP requests answered, by route pattern, method and status.\n"
        out += "# TYPE abctl_http_requests_total counter\n"
        let answers = routes.flatMap { route, stats in stats.answers.map { (route: route, method: $0.method, status: $0.status, count: $0.count) } }
        for a in answers.sorted(by: { ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status) }) {
            out += "abctl_http_requests_total{route=\"\(Self.escape(a.route))\",method=\"\(Self.escape(a.method))\",status=\"\(a.status)\"} \(a.count)\n"
        }
        out += "# HELP abctl_http_request_duration_seconds Time from the request's headers to the end of its response.\n"
        out += "# TYPE abctl_http_request_duration_seconds histogram\n"
        for (route, h) in routes.map({ ($0.key, $0.value.latency) }).sorted(by: { $0.0 < $1.0 }) {
            var cumulative = 0
            let label = "route=\"\(Self.escape(route))\""
            for (i, bound) in Self.latencyBuckets.enumerated() {
                cumulative += h.counts[i]
                out += "abctl_http_request_duration_seconds_bucket{\(label),le=\"\(Self.format(bound))\"} \(cumulative)\n"
            }
            out += "abctl_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(h.count)\n"
            out += "abctl_http_request_duration_seconds_sum{\(label)} \(Self.format(h.sum))\n"
            out += "abctl_http_request_duration_seconds_count{\(label)} \(h.count)\n"
        }
        out += "# HELP abctl_events_total Events received over HTTP, by outcome.\n"
        out += "# TYPE abctl_events_total counter\n"
        out += "abctl_events_total{outcome=\"stored\"} \(eventsStored.load(ordering: .relaxed))\n"
        out += "abctl_events_total{outcome=\"duplicate\"} \(eventsDuplicate.load(ordering: .relaxed))\n"
        out += "abctl_events_total{outcome=\"rejected\"} \(eventsRejected.load(ordering: .relaxed))\n"
        out += "abctl_events_total{outcome=\"ignored\"} \(eventsIgnored.load(ordering: .relaxed))\n"
        out += "# HELP abctl_unmatched_store_payments_total Payments from store webhooks whose account (appAccountToken, Play account id) no exposure had named: stored under the token until one does.\n"
        out += "# TYPE abctl_unmatched_store_payments_total counter\n"
        out += "abctl_unmatched_store_payments_total \(unmatchedStorePayments.load(ordering: .relaxed))\n"
        out += "# HELP abctl_webhook_events_total RevenueCat webhook events, by the event type they became or the type that was ignored.\n"
        out += "# TYPE abctl_webhook_events_total counter\n"
        for (key, n) in webhooks.withLock({ $0 }).sorted(by: { ($0.key.outcome, $0.key.type) < ($1.key.outcome, $1.key.type) }) {
            out += "abctl_webhook_events_total{outcome=\"\(key.outcome)\",type=\"\(Self.escape(key.type))\"} \(n)\n"
        }
        out += "# HELP abctl_appstore_notifications_total Verified App Store notifications, by the event type they became or the type that was ignored.\n"
        out += "# TYPE abctl_appstore_notifications_total counter\n"
        for (key, n) in appStoreNotifications.withLock({ $0 }).sorted(by: { ($0.key.outcome, $0.key.type) < ($1.key.outcome, $1.key.type) }) {
            out += "abctl_appstore_notifications_total{outcome=\"\(key.outcome)\",type=\"\(Self.escape(key.type))\"} \(n)\n"
        }
        out += Self.counter("abctl_stripe_events_total", "Verified Stripe events, by the event type they became or the Stripe type that was ignored.",
                            stripeEvents.withLock { $0 })
        out += Self.counter("abctl_googleplay_notifications_total", "Verified Google Play notifications, by the event type they became or the type that was ignored.",
                            googlePlayNotifications.withLock { $0 })
        out += "# HELP abctl_reloads_total Experiment reloads (SIGHUP), by result.\n"
        out += "# TYPE abctl_reloads_total counter\n"
        out += "abctl_reloads_total{result=\"ok\"} \(reloadsOK.load(ordering: .relaxed))\n"
        out += "abctl_reloads_total{result=\"failed\"} \(reloadsFailed.load(ordering: .relaxed))\n"
        for (name, help, value) in gauges {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(Self.format(value))\n"
        }
        return out
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    static func format(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }
}
