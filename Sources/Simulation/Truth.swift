import ExperimentDefinitions
import Foundation

/// The true behaviour of simulated users, per variant: what a report should recover.
///
/// The truth file (JSON, all keys optional):
/// ```
/// { "default": { "trial_start": 0.35, "day0_cancel": 0.25, …,
///                "by": { "country": { "US": { "trial_start": 0.45 } } } },
///   "experiments": { "EXPERIMENT": { "VARIANT": { "trial_start": 0.40,
///                                                 "by": { "platform": { "android": { "trial_start": 0.35 } } } } } },
///   "ai_copy": { "on_device": 0.7, "guard_reject": 0.08, "timeout": 0.03 },
///   "population": { "platform": { "ios": 0.6, "android": 0.4 }, "new_user": 0.9,
///                   "placement": { "onboarding_end": 0.7, "feature_gate": 0.3 },
///                   "attributes": { "acquisition": { "organic": 0.7, "paid": 0.3 } },
///                   "signals": { "companion": { "dog": 0.3, "alone": 0.7 } },
///                   "login": 0.6, "purchase_under": "known" } }
/// ```
/// Variant rates override the default rates key by key; variants the file does not name get its
/// `default` rates, so a file that names nothing is an A/A test.
///
/// Rates by segment (`by`: attribute → value → rates): a user whose attribute has that value gets
/// those rates, key by key. The attribute is one the population draws (`platform`, `country`,
/// `language`, `app_version`, `new_user` as `true`/`false`, `placement`, or a name of
/// `population.attributes`). Later wins: the default's rates, then the default's `by` entries that
/// match the user (in file order), then the keys the variant sets, then the variant's `by` entries.
/// So a `by` in `default` moves every arm (a higher trial start rate in one country), and a `by`
/// in a variant moves one arm (a treatment effect that differs by platform).
public struct Truth: Sendable {
    /// Probabilities of what a user does after seeing the paywall.
    public struct Rates: Sendable, Equatable {
        /// Starts a free trial (when the variant has one).
        public var trialStart = 0.35
        /// A trial starter cancels auto-renew within the Day-0 window.
        public var day0Cancel = 0.25
        /// A trial starter who did not cancel on Day 0 cancels later in the trial.
        public var laterCancel = 0.15
        /// A trial that was not cancelled becomes paid at its end (billing may fail).
        public var convert = 0.9
        /// A user who started no trial buys straight away.
        public var directPurchase = 0.01
        /// A payer picks the annual plan (else monthly).
        public var annualShare = 0.6
        /// A monthly payer renews each month.
        public var renewal = 0.85
        /// A payer asks for a refund within three days.
        public var refund = 0.03
        /// A charge that comes due (a trial's conversion, a purchase, a monthly renewal) fails: the store
        /// says `billing_issue` and retries through a grace period.
        public var billingIssue = 0.0
        /// A failed charge goes through later inside the grace; otherwise the subscription expires for billing.
        public var billingRecovery = 0.0
        /// A cancel is undone (`uncancelled`) a few hours later, before the period ends.
        public var uncancel = 0.0
        /// An exposure that never reaches the store (a client bug); non-zero values cause a sample ratio mismatch.
        public var exposureLoss = 0.0
        /// When set, renewals follow it instead of `renewal` (monthly and annual plans alike).
        public var renewalChurn: RenewalChurn? = nil

        public init() {}

        static var keys: [String: WritableKeyPath<Rates, Double>] { [
            "trial_start": \.trialStart, "day0_cancel": \.day0Cancel, "later_cancel": \.laterCancel, "convert": \.convert,
            "direct_purchase": \.directPurchase, "annual_share": \.annualShare, "renewal": \.renewal, "refund": \.refund,
            "exposure_loss": \.exposureLoss, "billing_issue": \.billingIssue, "billing_recovery": \.billingRecovery,
            "uncancel": \.uncancel,
        ] }

        /// The true probability that a user of a variant with `trialDays` days of trial ends up with `fact`,
        /// once the trial has had time to finish.
        public func probability(of fact: UserOutcome.Fact, trialDays: Int, day0WindowHours: Double) -> Double {
            let laterCancelPossible = Double(trialDays) * 24 > day0WindowHours
            let later = laterCancelPossible ? laterCancel : 0
            // Cancels that stood (an undone one is no cancel, and its trial comes due like any other).
            let day0Stands = day0Cancel * (1 - uncancel), laterStands = (1 - day0Cancel) * later * (1 - uncancel)
            let starts = trialDays > 0 ? trialStart : 0
            // A first charge attempted: a trial that comes due and converts, or a purchase; a failed one
            // that is not recovered never pays.
            let charged = starts * (1 - day0Stands - laterStands) * convert + (1 - starts) * directPurchase
            let goesThrough = 1 - billingIssue * (1 - billingRecovery)
            let paid = charged * goesThrough
            switch fact {
            case .exposure: return 1
            case .trialStart: return starts
            case .paid: return paid
            case .converted: return starts * (1 - day0Stands - laterStands) * convert * goesThrough
            case .day0Cancel: return starts * day0Stands
            case .trialCancel: return starts * (day0Stands + laterStands)
            case .refund: return paid * refund
            case .chargeDue: return starts + (1 - starts) * directPurchase
            case .billingIssue: return charged * billingIssue
            }
        }

        /// The true value of a rate metric (without horizon) for users who have had time to finish the trial:
        /// the chance of its numerator's fact among users with its unit's fact. Nil for revenue, or when nobody is in the unit.
        public func expected(_ metric: Metric, trialDays: Int, day0WindowHours: Double) -> Double? {
            guard case .proportion(let numerator) = metric.definition.statistic else { return nil }
            let unit = probability(of: metric.unit.fact, trialDays: trialDays, day0WindowHours: day0WindowHours)
            guard unit > 0 else { return nil }
            return probability(of: numerator, trialDays: trialDays, day0WindowHours: day0WindowHours) / unit
        }
    }

    /// Heterogeneous renewal: each payer draws a churn probability θ ~ Beta(alpha, beta) and, at its
    /// t-th renewal, churns with probability min(1, θ · tenureFactor^(t − 1)). A tenure factor of 1 is the
    /// shifted-beta-geometric model the forecast assumes; any other value is a shape it does not assume
    /// (churn that rises or falls with tenure), to measure the forecast's error when it is wrong.
    /// Truth file: `"renewal_churn": {"alpha": 1.2, "beta": 6, "tenure_factor": 1}`.
    public struct RenewalChurn: Sendable, Equatable {
        public var alpha: Double
        public var beta: Double
        public var tenureFactor: Double

        public init(alpha: Double, beta: Double, tenureFactor: Double = 1) {
            self.alpha = alpha
            self.beta = beta
            self.tenureFactor = tenureFactor
        }

        /// The churn probability at renewal `t` (1-based) of a payer whose base probability is `theta`.
        public func churn(theta: Double, renewal t: Int) -> Double {
            min(1, theta * pow(tenureFactor, Double(t - 1)))
        }
    }

    /// How the AI arm's copy reaches users.
    public struct AICopy: Sendable, Equatable {
        /// Devices with an on-device model; the rest show the fallback (`no_model`).
        public var onDevice = 0.7
        /// Generated lines the guard rejects (`guard_rejected`).
        public var guardReject = 0.08
        /// Generations that take too long (`timeout`).
        public var timeout = 0.03
        public init() {}
    }

    /// Rates for users with one attribute value (`by` in a truth file): the rate keys it sets.
    public struct SegmentRates: Sendable, Equatable {
        public var attribute: String
        public var value: String
        /// Rate key (`trial_start`, …) → probability.
        public var rates: [String: Double]

        public init(attribute: String, value: String, rates: [String: Double]) {
            self.attribute = attribute
            self.value = value
            self.rates = rates
        }
    }

    /// Who the users are: attributes for targeting and signals for briefs.
    public struct Population: Sendable {
        public var attributes: [(String, [(String, Double)])] = [
            ("platform", [("ios", 0.6), ("android", 0.4)]),
            ("country", [("US", 0.5), ("GB", 0.2), ("DE", 0.15), ("FR", 0.15)]),
            ("language", [("en", 0.7), ("de", 0.15), ("fr", 0.15)]),
            ("app_version", [("2.3.0", 0.7), ("2.1.4", 0.2), ("2.0.9", 0.1)]),
        ]
        public var newUser = 0.9
        /// The placement each user's exposures carry, by share; empty: none.
        public var placement: [(String, Double)] = []
        /// The share of users who log in after their exposure: an `identified` event
        /// joins their anonymous id to a known id (`acct-SEED-N`). 0: nobody does.
        public var login = 0.0
        /// Under which id a logged-in user's purchases arrive: the known id (`known`, as a store
        /// account set at sign-in gives them) or the anonymous id (`anonymous`).
        public var purchaseUnder = PurchaseUnder.known
        public enum PurchaseUnder: String, Sendable { case known, anonymous }
        public var signals: [(String, [(String, Double)])] = [
            ("companion", [("dog", 0.3), ("kids", 0.15), ("partner", 0.2), ("alone", 0.35)]),
            ("goal", [("learn_songs", 0.4), ("count_species", 0.2), ("relax", 0.3), ("exercise", 0.1)]),
            ("walk_time", [("dawn", 0.25), ("midday", 0.35), ("evening", 0.4)]),
            ("experience", [("new", 0.5), ("some", 0.35), ("expert", 0.15)]),
        ]
        public init() {}
    }

    public var defaultRates = Rates()
    /// The default's rates by segment, in file order.
    public var defaultBy: [SegmentRates] = []
    /// Experiment id → variant key → rates.
    public var variants: [String: [String: Rates]] = [:]
    /// Experiment id → variant key → the rate keys the variant sets itself (over which the default's `by` does not reach).
    public var variantKeys: [String: [String: Set<String>]] = [:]
    /// Experiment id → variant key → the variant's rates by segment, in file order.
    public var variantBy: [String: [String: [SegmentRates]]] = [:]
    public var aiCopy = AICopy()
    public var population = Population()

    public init() {}

    /// Whether any rates depend on who the user is.
    public var hasSegmentRates: Bool { !defaultBy.isEmpty || !variantBy.isEmpty }

    /// A variant's rates for a user with no segment rates (or a truth with none).
    public func rates(experiment: String, variant: String) -> Rates {
        variants[experiment]?[variant] ?? defaultRates
    }

    /// A variant's rates for a user whose attribute values `value(attribute)` gives (`true`/`false`
    /// for booleans, the placement for `placement`): the default, the default's matching `by`
    /// entries, the variant's own keys, the variant's matching `by` entries, later winning.
    public func rates(experiment: String, variant: String, value: (String) -> String?) -> Rates {
        var r = rates(experiment: experiment, variant: variant)
        guard hasSegmentRates else { return r }
        let own = variantKeys[experiment]?[variant] ?? []
        func apply(_ segment: SegmentRates, skipping: Set<String>) {
            guard value(segment.attribute) == segment.value else { return }
            for (key, x) in segment.rates where !skipping.contains(key) {
                if let path = Rates.keys[key] { r[keyPath: path] = x }
            }
        }
        for s in defaultBy { apply(s, skipping: own) }
        for s in variantBy[experiment]?[variant] ?? [] { apply(s, skipping: []) }
        return r
    }
}
