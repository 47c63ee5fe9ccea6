import Events
import ExperimentDefinitions

/// Events that between them give every column of `EventColumns` a value, for tests that store
/// them and read them back whole.
public enum EventColumnsSamples {
    public static let everyColumnFilled: [Event] = {
        let at = EventFactory.at
        let exposure = Event(id: "c-1", type: .exposure, userID: "cols-1", timestamp: at(1), experiment: "e", variant: "b",
                             copySource: .fallback, copyText: "A line.", copyFallbackReason: "timeout", placement: "onboarding",
                             attributes: ExposureAttributes([(key: "country", value: .string("DE")), (key: "new_user", value: .bool(true))]),
                             storeAccountID: "5f0c9a3e-0d4b-4a8e-9a57-3c1a2b4d5e6f", allocationPeriod: at(0))
        let trial = Event(id: "c-2", type: .trialStarted, userID: "cols-2", timestamp: at(2), productID: "plus.annual",
                          trialDays: 7, store: .appStore)
        let payment = Event(id: "c-3", type: .purchased, userID: "cols-3", timestamp: at(3), experiment: "e", revenue: 10.8,
                            currency: "USD", productID: "plus.annual", originalRevenue: 10, originalCurrency: "EUR",
                            store: .googlePlay, proceeds: 9.18, proceedsBeforeTax: true)
        let identified = Event(id: "c-4", type: .identified, userID: "cols-4", timestamp: at(4), identity: "account-4")
        let billing = Event(id: "c-5", type: .billingIssue, userID: "cols-5", timestamp: at(5), productID: "plus.annual",
                            store: .appStore, graceUntil: at(21))
        let expired = Event(id: "c-6", type: .expired, userID: "cols-6", timestamp: at(6), experiment: "e", productID: "plus.annual",
                            store: .googlePlay, reason: .priceIncrease)
        let planChanged = Event(id: "c-7", type: .planChanged, userID: "cols-7", timestamp: at(7), productID: "plus.annual",
                                store: .stripe, previousProductID: "plus.monthly", effective: .nextRenewal)
        return [exposure, trial, payment, identified, billing, expired, planChanged]
    }()
}
