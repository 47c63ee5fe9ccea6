import AbctlClient
import Foundation
import TestSupport

/// What the tests share: the bundled default, a configuration in a fresh folder, the users.
enum ClientFixtures {
    static let experiment = "chorus-paywall-copy"
    /// Forced into `name` (a template) and `ai` by the shipped experiment file.
    static let templateUser: UserID = "qa-device-2"
    static let aiUser: UserID = "qa-device-1"

    static let bundledDefault = ResolvedPaywall(offering: "chorus_plus", trialDays: 3,
                                                copy: .text("Bundled: hear every bird.", source: .static, fallbackReason: nil))

    /// Deadlines are long unless a test is about them. A model's answer needs a thread of the test
    /// process's shared pool, which the full suite's blocking tests have held for over 10 s, and a
    /// quick answer must not turn into a timeout then. (The assign deadline races on URLSession's
    /// and Dispatch's threads, which the pool does not hold up.)
    static func configuration(_ url: URL, storage: TemporaryDirectory, assignDeadline: Duration = .seconds(10),
                              retryAfter: Duration = .zero, model: (any CopyModel)? = nil,
                              copyDeadline: Duration = .seconds(600), queueCapacity: Int = 10_000,
                              sendsAutomatically: Bool = false) -> ClientConfiguration {
        ClientConfiguration(serverURL: url, storageDirectory: storage.url, defaultPaywall: bundledDefault, assignDeadline: assignDeadline,
                            retryAfter: retryAfter, model: model, copyDeadline: copyDeadline, queueCapacity: queueCapacity,
                            initialBackoff: .milliseconds(20), maxBackoff: .milliseconds(100), sendsAutomatically: sendsAutomatically)
    }

    static func query(_ user: UserID, signals: [String: JSONValue] = [:], userName: String? = nil) -> PaywallQuery {
        PaywallQuery(userID: user, experiment: experiment, attributes: ["platform": .string("ios")],
                     variables: userName.map { ["userName": $0] } ?? [:], signals: signals)
    }
}
