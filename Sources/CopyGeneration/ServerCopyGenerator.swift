import Dispatch
import ExperimentDefinitions
import Foundation
import PaywallCopy
import Synchronization

/// Where accepted lines are kept between restarts, keyed by (experiment, variant, brief).
public protocol CopyLineCache: Sendable {
    func cachedLine(experiment: String, variant: String, brief: String) -> String?
    func saveLine(_ line: String, experiment: String, variant: String, brief: String)
}

/// Writes copy on the server for devices with no on-device model.
///
/// A line for a (experiment, variant, brief) is generated once, guarded, retried once when the
/// guard rejects it, and cached; later users with the same brief get it at once. An assign call
/// never waits longer than `deadline`: when the model is slower, the fallback ships with reason
/// `timeout` and generation finishes in the background, so the next call finds the line.
public final class ServerCopyGenerator: Sendable {
    /// A failure kept for `GET /v1/diagnostics/copy`.
    public struct Failure: Sendable, Equatable {
        public var at: Date
        public var experiment: String
        public var variant: String
        public var reason: FallbackReason
        public var detail: String
    }

    /// What an assign call gets: a line, its source, and why it fell back when it did.
    public struct Outcome: Sendable, Equatable {
        public var text: String
        public var source: CopySource
        public var fallbackReason: FallbackReason?
    }

    /// Every reason a call to `line` can fall back for.
    public static let fallbackReasons: [FallbackReason] = [.guardRejected, .timeout, .emptyAnswer, .error]

    /// What the generator has done since it started, for `GET /v1/diagnostics/copy`.
    public struct Counts: Sendable, Equatable {
        /// Lines the model wrote that passed the guard.
        public var generated = 0
        /// Calls answered with a line generated before (kept in memory or in the cache).
        public var cacheHits = 0
        /// Calls answered with the fallback, by reason.
        public var fallbacks: [FallbackReason: Int] = [:]

        public init() {}
    }

    private struct Key: Hashable, Sendable {
        var experiment: String, variant: String, brief: String
    }

    /// A generation in flight; waiters block on `done` until it finishes.
    private final class Flight: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<String, ChatCompletionError>?>(nil)
    }

    private let client: any ChatCompleting
    private let cache: (any CopyLineCache)?
    public let deadline: Duration
    private let maxFailures: Int
    private let lines = Mutex<[Key: String]>([:])
    private let flights = Mutex<[Key: Flight]>([:])
    private let failures = Mutex<[Failure]>([])
    private let tally = Mutex(Counts())
    /// After a failed generation, how long its brief gets the fallback at once, without asking
    /// the model: while a model is down, assign calls must not each wait out the deadline.
    public let retryAfter: Duration
    private let failedUntil = Mutex<[Key: (until: ContinuousClock.Instant, reason: FallbackReason)]>([:])

    public init(client: any ChatCompleting, cache: (any CopyLineCache)? = nil, deadline: Duration = .milliseconds(300),
                retryAfter: Duration = .seconds(30), maxFailures: Int = 50) {
        self.client = client
        self.cache = cache
        self.deadline = deadline
        self.retryAfter = retryAfter
        self.maxFailures = maxFailures
    }

    /// The newest failures first.
    public var recentFailures: [Failure] { failures.withLock { Array($0.reversed()) } }

    public var counts: Counts { tally.withLock { $0 } }

    /// A line for this recipe within `deadline`, always: generated, cached, or the fallback.
    public func line(experiment: String, variant: String, recipe: CopyRecipe, userName: String?) -> Outcome {
        let key = Key(experiment: experiment, variant: variant, brief: recipe.brief)
        if let known = lines.withLock({ $0[key] }) ?? cache?.cachedLine(experiment: experiment, variant: variant, brief: recipe.brief) {
            lines.withLock { $0[key] = known }
            return counted(accept(known, recipe: recipe, userName: userName, key: key), cacheHit: true)
        }
        if let reason = backingOff(key) {
            return counted(Outcome(text: recipe.fallback, source: .fallback, fallbackReason: reason), cacheHit: false)
        }
        return counted(awaitGeneration(key, recipe: recipe, userName: userName), cacheHit: false)
    }

    /// Waits up to `deadline` for the line of `key`, starting its generation when none is in flight.
    private func awaitGeneration(_ key: Key, recipe: CopyRecipe, userName: String?) -> Outcome {
        let flight = start(key, recipe: recipe)
        let nanoseconds = UInt64(max(0, deadline.components.seconds)) * 1_000_000_000 + UInt64(max(0, deadline.components.attoseconds / 1_000_000_000))
        guard flight.done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else {
            return Outcome(text: recipe.fallback, source: .fallback, fallbackReason: .timeout)
        }
        flight.done.signal()  // let any other waiter through
        switch flight.result.withLock({ $0 }) {
        case .success(let text)?: return accept(text, recipe: recipe, userName: userName, key: key)
        case .failure(let error)?: return Outcome(text: recipe.fallback, source: .fallback, fallbackReason: error.reason)
        case nil: return Outcome(text: recipe.fallback, source: .fallback, fallbackReason: .error)
        }
    }

    /// The reason of a recent failure of `key`, while its retry is not yet due.
    private func backingOff(_ key: Key) -> FallbackReason? {
        failedUntil.withLock { table in
            guard let failure = table[key] else { return nil }
            if ContinuousClock.now < failure.until { return failure.reason }
            table[key] = nil
            return nil
        }
    }

    private func counted(_ outcome: Outcome, cacheHit: Bool) -> Outcome {
        tally.withLock { counts in
            if let reason = outcome.fallbackReason {
                counts.fallbacks[reason, default: 0] += 1
            } else if cacheHit {
                counts.cacheHits += 1
            }
        }
        return outcome
    }

    /// A cached line still has to pass this user's guard (their name may be in it by chance).
    private func accept(_ text: String, recipe: CopyRecipe, userName: String?, key: Key) -> Outcome {
        let verdict = recipe.guardRules.check(text, userName: userName)
        if verdict.accepted { return Outcome(text: verdict.text, source: .server, fallbackReason: nil) }
        record(key, .guardRejected, "cached line breaks this user's guard: \(verdict.violations.map(\.description).joined(separator: "; "))")
        return Outcome(text: recipe.fallback, source: .fallback, fallbackReason: .guardRejected)
    }

    /// Joins the generation in flight for `key`, or starts one.
    private func start(_ key: Key, recipe: CopyRecipe) -> Flight {
        let (flight, isNew) = flights.withLock { table -> (Flight, Bool) in
            if let existing = table[key] { return (existing, false) }
            let f = Flight()
            table[key] = f
            return (f, true)
        }
        guard isNew else { return flight }
        let request = ChatRequest(system: recipe.instructions, user: recipe.prompt, temperature: recipe.temperature, maxTokens: recipe.maxTokens)
        let guardRules = recipe.guardRules
        // A thread of its own: generations are rare (one per brief), and Dispatch's and Swift's shared
        // pools may be full of callers blocked waiting for exactly this line.
        Thread.detachNewThread { [self] in
            let result = self.generate(request, guardRules: guardRules, key: key)
            switch result {
            case .success(let text):
                self.tally.withLock { $0.generated += 1 }
                self.lines.withLock { $0[key] = text }
                self.cache?.saveLine(text, experiment: key.experiment, variant: key.variant, brief: key.brief)
            case .failure(let error):
                self.failedUntil.withLock { $0[key] = (ContinuousClock.now + self.retryAfter, error.reason) }
            }
            flight.result.withLock { $0 = result }
            self.flights.withLock { _ = $0.removeValue(forKey: key) }
            flight.done.signal()
        }
        return flight
    }

    /// Asks the model, guards the answer, and asks once more when the guard rejects it.
    private func generate(_ request: ChatRequest, guardRules: CopyGuard, key: Key) -> Result<String, ChatCompletionError> {
        var lastRejection = ""
        for _ in 0..<2 {
            do {
                let answer = try client.complete(request)
                // Names never reach the prompt, so the shared line is checked without one here.
                let verdict = guardRules.check(answer)
                if verdict.accepted { return .success(verdict.text) }
                lastRejection = "\"\(verdict.text)\": \(verdict.violations.map(\.description).joined(separator: "; "))"
                record(key, .guardRejected, lastRejection)
            } catch let error as ChatCompletionError {
                record(key, error.reason, error.detail)
                return .failure(error)
            } catch {
                record(key, .error, "\(error)")
                return .failure(ChatCompletionError(reason: .error, detail: "\(error)"))
            }
        }
        return .failure(ChatCompletionError(reason: .guardRejected, detail: lastRejection))
    }

    private func record(_ key: Key, _ reason: FallbackReason, _ detail: String) {
        let failure = Failure(at: Date(), experiment: key.experiment, variant: key.variant, reason: reason, detail: detail)
        failures.withLock {
            $0.append(failure)
            if $0.count > maxFailures { $0.removeFirst($0.count - maxFailures) }
        }
    }
}
