import ExperimentDefinitions
import Testing
@testable import Webhooks

/// The trial Apple granted (a trial start's `trial_days`) and the user behind an `appAccountToken`.
@Suite struct AppStoreGrantedTrialTests {
    @Test(arguments: [("P1W", 7), ("P3D", 3), ("P1M", 30), ("P1Y", 365), ("P2W3D", 17), ("P0D", 0)])
    func offerPeriods(period: String, days: Int) {
        #expect(AppStoreMapping.days(iso8601: period) == days)
    }

    @Test(arguments: ["", "P", "1W", "PW", "P1H", "PT1H", "P1W2", "P-1D", "P99999D"])
    func malformedPeriods(period: String) {
        #expect(AppStoreMapping.days(iso8601: period) == nil)
    }

    @Test func aTrialStartCarriesTheOfferPeriodElseTheDatesAndMapsTheTokenToItsUser() throws {
        var trial = AppStoreMappingTests.transaction(offer: "FREE_TRIAL", user: "6f1a3c2e-8d4b-4f7a-9c0e-2b5d7e9f1a3c")
        trial.append(("purchaseDate", .number(1_764_000_000_000)))
        trial.append(("expiresDate", .number(1_764_000_000_000 + 3 * 86_400_000 + 1000)))
        func event(_ transaction: [(String, JSONValue)], type: String = "SUBSCRIBED") throws -> MappedEvent? {
            let outcome = try AppStoreMapping.map(payload: AppStoreMappingTests.payload(type, "INITIAL_BUY"), transaction: transaction,
                                                  trialAwaitingConversion: { _ in false },
                                                  userForStoreAccount: { $0 == "6f1a3c2e-8d4b-4f7a-9c0e-2b5d7e9f1a3c" ? "ana" : nil })
            if case .event(let e, _) = outcome { return e } else { return nil }
        }
        let byDates = try #require(try event(trial))
        #expect(byDates.type == .trialStarted && byDates.trialDays == 3 && byDates.userID == "ana")
        trial.append(("offerPeriod", .string("P1W")))
        #expect(try event(trial)?.trialDays == 7)
        // Not a trial start: no trial_days. An unknown token is the user itself.
        let paid = try #require(try event(AppStoreMappingTests.transaction(user: "11111111-2222-4333-8444-555555555555")))
        #expect(paid.type == .purchased && paid.trialDays == nil && paid.userID == "11111111-2222-4333-8444-555555555555")
    }
}
