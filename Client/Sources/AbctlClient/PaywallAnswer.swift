import Foundation

/// What `paywall(for:)` answers: always a paywall to show, where it came from, and why.
public struct PaywallAnswer: Sendable {
    public var userID: UserID
    public var experiment: String
    /// The variant the user is in; nil when the default paywall is shown (no exposure to log).
    public var variant: String?
    /// The paywall as the server resolved it (copy as text, or the AI recipe).
    public var paywall: ResolvedPaywall
    /// The line to show, with its copy source (what the exposure event carries).
    public var copy: ShownCopy
    public var source: PaywallSource
    public var reason: AnswerReason
    /// A bandit's allocation period that drew the arm, when the server answered: the exposure echoes it.
    public var allocationPeriod: Date? = nil
}

/// Where an answer came from.
public enum PaywallSource: String, Sendable, CaseIterable, Hashable {
    /// `POST /v1/assign` answered within the deadline.
    case server
    /// The last assignment the server gave this user for this experiment, kept on the device.
    case cache
    /// The paywall bundled with the app.
    case `default`
}

/// Why an answer came from where it did.
public struct AnswerReason: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable, Hashable {
        /// The server assigned a variant.
        case assigned
        /// The server answered that the user is not in the experiment (targeting, coverage, dates…).
        case notInExperiment = "not_in_experiment"
        /// No answer within the assign deadline.
        case timeout
        /// The server could not be reached (offline, refused, DNS…).
        case unreachable
        /// The server answered with an error status.
        case serverError = "server_error"
        /// The server's answer could not be read.
        case badAnswer = "bad_answer"
        /// An assign call failed moments ago; the server was not asked again yet (`retryAfter`).
        case backingOff = "backing_off"
    }

    public var code: Code
    /// Words for a person: the server's reason, the error, how long ago the last failure was.
    public var detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}

/// The line a paywall shows, and where it came from (the exposure's `copy_source`).
public struct ShownCopy: Sendable, Equatable {
    public var text: String
    public var source: CopySource
    /// Why an AI arm showed its fallback (`no_model`, `timeout`, `error`, `empty_answer`, `guard_rejected`, `empty_brief`).
    public var fallbackReason: FallbackReason?
    /// What went wrong in words (the error, the broken rules); not sent to the server.
    public var detail: String?

    public init(text: String, source: CopySource, fallbackReason: FallbackReason? = nil, detail: String? = nil) {
        self.text = text
        self.source = source
        self.fallbackReason = fallbackReason
        self.detail = detail
    }
}
