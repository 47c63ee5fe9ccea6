import Events
import ExperimentDefinitions
import TestSupport

/// Seeded synthetic events of every type over several experiments: exposures (some users in two
/// experiments, some re-exposed to another variant, some never exposed), trials, cancels,
/// payments, renewals, refunds, uncancels, billing issues, expiries and plan changes, several at the same instant so tie-breaking matters; some
/// exposures carry an `allocation_period`.
enum RandomEvents {
    static let experiments = ["alpha", "beta", "gamma"]
    static let variants = ["control", "name", "ai"]
    static let origin = Timestamp(rfc3339: "2026-12-01T00:00:00Z")!

    static func make(users: Int, seed: UInt64) -> [Event] {
        var rng = SeededGenerator(seed: seed)
        // The subscription's life (uncancels, billing issues, expiries, plan changes) from a generator of
        // its own, so every other draw stays as it was.
        var life = SeededGenerator(seed: seed &+ 0x11FE)
        var events: [Event] = []
        for u in 0..<users {
            let user: UserID = "user-\(u)"
            var n = 0
            // Every user numbers events from e1, so event ids repeat across users (the idempotency key is per user).
            func id() -> EventID { n += 1; return "e\(n)" }
            // Whole hours, so events of one user often share an instant.
            func at(_ maxHours: Int) -> Timestamp { origin.adding(hours: Double(Int.random(in: 0...maxHours, using: &rng))) }
            let exposures = u % 10 == 9 ? 0 : Int.random(in: 1...3, using: &rng)
            for _ in 0..<exposures {
                let source = [nil, CopySource.onDevice, .fallback, .server].randomElement(using: &rng)!
                let ts = at(24 * 10)
                // A bandit's exposure echoes its allocation period: some users' do, the day the
                // exposure is in or the one before (a late log), so the first exposure's must be the one kept.
                // Drawn from no generator, so every other draw stays as it was.
                let day: Int64 = 86_400_000_000
                let period = u % 4 == 1 ? Timestamp(microseconds: ts.microseconds - ts.microseconds % day - (n % 2 == 0 ? day : 0)) : nil
                events.append(Event(id: id(), type: .exposure, userID: user, timestamp: ts,
                                    experiment: experiments.randomElement(using: &rng)!, variant: variants.randomElement(using: &rng)!,
                                    copySource: source, copyText: source == nil ? nil : "A line.",
                                    copyFallbackReason: source == .fallback ? "empty_brief" : nil,
                                    placement: [nil, "onboarding_end", "feature_gate"].randomElement(using: &rng)!,
                                    attributes: attributes(&rng), allocationPeriod: period))
            }
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let type = [EventType.trialStarted, .purchased, .converted, .renewed, .cancelled, .refunded].randomElement(using: &rng)!
                let revenue: Double? = type.carriesRevenue && Int.random(in: 0..<5, using: &rng) > 0
                    ? [59.99, 9.99, 4.99, 0.1, 0.2].randomElement(using: &rng)! * (type == .refunded && Bool.random(using: &rng) ? -1 : 1)
                    : nil
                events.append(Event(id: id(), type: type, userID: user, timestamp: at(24 * 40), revenue: revenue,
                                    currency: revenue == nil ? nil : "USD"))
            }
            for _ in 0..<Int.random(in: 0...3, using: &life) {
                let type = [EventType.uncancelled, .billingIssue, .expired, .planChanged, .cancelled].randomElement(using: &life)!
                let ts = origin.adding(hours: Double(Int.random(in: 0...(24 * 40), using: &life)))
                events.append(Event(id: id(), type: type, userID: user, timestamp: ts,
                                    productID: type == .planChanged ? "chorus.plus.annual" : nil,
                                    reason: type == .expired ? ExpiryReason.allCases.randomElement(using: &life)! : nil,
                                    graceUntil: type == .billingIssue ? ts.adding(hours: 24 * 16) : nil))
            }
        }
        return events
    }

    /// A random subset of exposure attributes of every value type, some with bytes COPY and
    /// SQLite must carry as they are (a tab, a backslash, non-ASCII).
    static func attributes(_ rng: inout SeededGenerator) -> ExposureAttributes {
        var pairs: [(key: String, value: ExposureAttributes.Value)] = []
        if Bool.random(using: &rng) { pairs.append(("platform", .string(["ios", "android"].randomElement(using: &rng)!))) }
        if Bool.random(using: &rng) { pairs.append(("country", .string(["GB", "US", "Ελλάδα", "a\tb\\c"].randomElement(using: &rng)!))) }
        if Bool.random(using: &rng) { pairs.append(("new_user", .bool(Bool.random(using: &rng)))) }
        if Bool.random(using: &rng) { pairs.append(("sessions", .number(Double(Int.random(in: 0...9, using: &rng)) / 2))) }
        return ExposureAttributes(pairs)
    }
}
