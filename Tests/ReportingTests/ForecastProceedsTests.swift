import Events
import ExperimentDefinitions
import Foundation
@testable import Reporting
import Testing

/// The forecast gives proceeds per user beside gross, from the same renewal models, each
/// further payment bringing in what the payer's last one did. The payers of ForecastCurrencyTests,
/// paying through a store whose cut is known, forecast proceeds equal to the gross forecast times
/// what a payment keeps, interval and comparison too; payers through different stores keep each
/// their own share.
@Suite struct ForecastProceedsTests {
    typealias Fixture = ForecastCurrencyTests

    static func forecast(_ payment: @escaping (Int) -> String) throws -> [ArmForecast] {
        try Fixture.forecast(Fixture.facts(price: 9.99, currency: "USD", payment: payment))
    }

    @Test(arguments: [
        (#","store":"app_store""#, 0.7),                   // products.json's default App Store cut, 30%: before tax
        (#","store":"google_play","proceeds":7.49"#, 7.49 / 9.99),   // what the store said it pays (RevenueCat's takehome)
    ])
    func proceedsAreTheGrossForecastTimesWhatAPaymentKeeps(_ keys: String, _ share: Double) throws {
        let forecasts = try Self.forecast { _ in keys }
        for f in forecasts {
            let gross = try #require(f.revenuePerUser), proceeds = try #require(f.proceedsPerUser, "\(f)")
            #expect(abs(proceeds - gross * share) <= 1e-9 * gross, "\(f.variant): \(proceeds) against \(gross) × \(share)")
            let ci = try #require(f.ci), proceedsCI = try #require(f.proceedsCI)
            #expect(abs(proceedsCI.lower - ci.lower * share) <= 1e-9 * gross && abs(proceedsCI.upper - ci.upper * share) <= 1e-9 * gross,
                    "\(f.variant): \(proceedsCI) against \(ci) × \(share)")
        }
        // Compared as the gross forecast is: the difference of the arms scales by the same share.
        let metric = try #require(Metric(name: "proceeds_per_user_forecast_d365"))
        let gross = try #require(try ForecastAnalysis.difference(control: forecasts[0], variant: forecasts[1]))
        let kept = try #require(try ForecastAnalysis.difference(control: forecasts[0], variant: forecasts[1], metric: metric))
        #expect(abs(kept.0 - gross.0 * share) <= 1e-9 && abs(kept.1.lower - gross.1.lower * share) <= 1e-9)
    }

    @Test func payersThroughDifferentStoresKeepEachTheirOwnShare() throws {
        // Even users pay through the App Store (30% cut), odd ones through Stripe (2.9% + 0.30).
        let mixed = try Self.forecast { $0 % 2 == 0 ? #","store":"app_store""# : #","store":"stripe""# }
        let apple = try Self.forecast { _ in #","store":"app_store""# }
        let stripe = try Self.forecast { _ in #","store":"stripe""# }
        let stripeShare = (9.99 * (1 - 0.029) - 0.30) / 9.99
        // Arms are split by parity too (control even, b odd): each arm is one store's payers.
        let control = try #require(mixed[0].proceedsPerUser), b = try #require(mixed[1].proceedsPerUser)
        #expect(abs(control - apple[0].proceedsPerUser!) <= 1e-12 && abs(b - stripe[1].proceedsPerUser!) <= 1e-12)
        #expect(abs(b - mixed[1].revenuePerUser! * stripeShare) <= 1e-9 * b, "\(b) against \(mixed[1].revenuePerUser!) × \(stripeShare)")
        #expect(mixed[0].revenuePerUser == apple[0].revenuePerUser, "gross does not depend on the store")
    }

    @Test func everyFormatShowsProceedsBesideGross() throws {
        let forecasts = try Self.forecast { _ in #","store":"app_store""# }
        let json = JSONReportRenderer.forecast(forecasts).serialized()
        #expect(json.contains(#""proceeds_per_user":"#) && json.contains(#""proceeds_ci":["#), "\(json.prefix(400))")
        let line = Wording.forecastLine(forecasts[0], in: "USD", proceedsBeforeTax: true)
        #expect(line.hasPrefix("control: gross ") && line.contains(", proceeds before tax "), "\(line)")
        #expect(Wording.forecastLine(forecasts[0], in: "USD", proceedsBeforeTax: false).contains(", proceeds "))
    }
}
