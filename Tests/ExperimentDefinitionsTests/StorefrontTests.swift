import Assignment
import Foundation
import Testing
import TestSupport
@testable import ExperimentDefinitions

/// Storefronts: every framing in every storefront's currency against claims computed by
/// hand (exact fractions: `python3 -c "from fractions import Fraction"`, floor and half-up as written).
@Suite struct StorefrontClaimTests {
    /// USD 9.99/59.99 (default), EUR 10.99/69.99, JPY 1500/9800, GBP 8.99/49.99, KRW 14000/99000.
    static let products = Products(
        currency: "USD",
        offerings: ["chorus_plus": [
            "monthly": .init(productID: "m", price: 9.99, period: "P1M", prices: ["EUR": 10.99, "JPY": 1500, "GBP": 8.99, "KRW": 14000]),
            "annual": .init(productID: "a", price: 59.99, period: "P1Y", prices: ["EUR": 69.99, "JPY": 9800, "GBP": 49.99, "KRW": 99000]),
        ]],
        exchangeRates: ["EUR": 1.08, "JPY": 0.0067, "GBP": 1.27, "KRW": 0.00075],
        storefronts: ["DE": "EUR", "FR": "EUR", "JP": "JPY", "GB": "GBP", "KR": "KRW"])

    @Test(arguments: [
        // currency, percent_off, months_free, per_week
        // 1 − 59.99/119.88 = 0.4996 → 49; 12 − 6.005 = 5.995 → 5; 59.99/52 = 1.1537 → $1.15
        ("USD", "Save 49%", "5 months free", "$1.15/week"),
        // 1 − 69.99/131.88 = 0.4693 → 46; 12 − 6.3685 = 5.63 → 5; 69.99/52 = 1.34596 → €1.35
        ("EUR", "Save 46%", "5 months free", "€1.35/week"),
        // 1 − 9800/18000 = 0.4556 → 45; 12 − 6.533 = 5.47 → 5; 9800/52 = 188.46 → ¥188 (no minor units)
        ("JPY", "Save 45%", "5 months free", "¥188/week"),
        // 1 − 49.99/107.88 = 0.5366 → 53; 12 − 5.5606 = 6.44 → 6; 49.99/52 = 0.9613 → £0.96
        ("GBP", "Save 53%", "6 months free", "£0.96/week"),
        // 1 − 99000/168000 = 0.4107 → 41; 12 − 7.071 = 4.93 → 4; 99000/52 = 1903.85 → ₩1,904
        ("KRW", "Save 41%", "4 months free", "₩1,904/week"),
    ])
    func everyFramingInEveryCurrency(currency: String, percent: String, months: String, week: String) throws {
        let p = Self.products
        #expect(try p.discountText(.percentOff, offering: "chorus_plus", in: currency) == percent)
        #expect(try p.discountText(.monthsFree, offering: "chorus_plus", in: currency) == months)
        #expect(try p.discountText(.perWeek, offering: "chorus_plus", in: currency) == week)
        #expect(try p.discountText(.none, offering: "chorus_plus", in: currency) == nil)
        // The same rule from Decimal prices, as the AbctlClient gives them from StoreKit.
        let monthly = p.offerings["chorus_plus"]!["monthly"]!, annual = p.offerings["chorus_plus"]!["annual"]!
        let m = Decimal(string: "\(monthly.price(in: currency, default: "USD")!)")!, a = Decimal(string: "\(annual.price(in: currency, default: "USD")!)")!
        #expect(try DiscountClaim.text(.percentOff, monthly: m, annual: a, currency: currency) == percent)
        #expect(try DiscountClaim.text(.perWeek, monthly: m, annual: a, currency: currency) == week)
    }

    @Test func aCountryGetsItsStorefrontsCurrencyAndNoCountryTheDefault() throws {
        let p = Self.products
        #expect(p.storefrontCurrency(country: "JP") == "JPY")
        #expect(p.storefrontCurrency(country: "jp") == "JPY")
        // Bytes, not canonical equivalence: a Kelvin sign is no K, and nothing but two letters is a country.
        #expect(p.storefrontCurrency(country: "\u{212A}R") == "USD")
        #expect(p.storefrontCurrency(country: "KR ") == "USD" && p.storefrontCurrency(country: "K") == "USD" && p.storefrontCurrency(country: "") == "USD")
        #expect(p.storefrontCurrency(country: "US") == "USD")
        #expect(p.storefrontCurrency(country: "BR") == "USD")
        #expect(p.storefrontCurrency(country: nil) == "USD")
        #expect(p.storefrontCurrencies == ["USD", "EUR", "GBP", "JPY", "KRW"])
        #expect(p.countries(pricedIn: "EUR") == ["DE", "FR"])
        // The default storefront's text is today's, with or without an explicit currency.
        #expect(try p.discountText(.perWeek, offering: "chorus_plus") == "$1.15/week")
    }

    @Test func aClaimOfZeroInOneStorefrontIsRefused() throws {
        // GBP 5 a month, 60 a year: exactly 12 months, so "Save 0%" and "0 months free" would be lies.
        var p = Self.products
        p.offerings["chorus_plus"]!["monthly"]!.prices["GBP"] = 5
        p.offerings["chorus_plus"]!["annual"]!.prices["GBP"] = 60
        #expect(throws: Products.DiscountProblem.claimNotPositive("Save 0%")) { try p.discountText(.percentOff, offering: "chorus_plus", in: "GBP") }
        #expect(throws: Products.DiscountProblem.claimNotPositive("0 months free")) { try p.discountText(.monthsFree, offering: "chorus_plus", in: "GBP") }
        // 60 / 52 = 1.1538 → £1.15: a per-week price is still a true claim.
        #expect(try p.discountText(.perWeek, offering: "chorus_plus", in: "GBP") == "£1.15/week")
        #expect(try p.discountText(.percentOff, offering: "chorus_plus", in: "USD") == "Save 49%")
    }

    @Test func moneyTextUsesTheCurrencysMinorUnitsRoundedHalfUp() throws {
        #expect(DiscountClaim.format(Decimal(1500), currency: "JPY") == "¥1,500")
        #expect(DiscountClaim.format(Decimal(string: "10.99")!, currency: "EUR") == "€10.99")
        #expect(DiscountClaim.format(Decimal(string: "9.9")!, currency: "CHF") == "CHF 9.90")
        #expect(DiscountClaim.format(Decimal(string: "1234567.891")!, currency: "USD") == "$1,234,567.89")
        #expect(DiscountClaim.format(Decimal(string: "1.2505")!, currency: "KWD") == "KWD 1.251")
        #expect(DiscountClaim.format(Decimal(string: "0.5")!, currency: "JPY") == "¥1")
        #expect(DiscountClaim.format(Decimal(string: "0.005")!, currency: "USD") == "$0.01")
        #expect(DiscountClaim.format(Decimal(string: "0.0049")!, currency: "USD") == "$0.00")
        #expect(DiscountClaim.format(Decimal(string: "999.995")!, currency: "GBP") == "£1,000.00")
        #expect(DiscountClaim.format(Decimal(string: "12499.5")!, currency: "KRW") == "₩12,500")
        #expect(Products.format(1.15, currency: "AUD") == "AUD 1.15")
        // 26 / 52 = 0.5 exactly: half up is ¥1, not ¥0.
        #expect(try DiscountClaim.text(.perWeek, monthly: nil, annual: 26, currency: "JPY") == "¥1/week")
        #expect(throws: DiscountClaim.Problem.claimNotPositive("¥0/week")) { try DiscountClaim.text(.perWeek, monthly: nil, annual: 25, currency: "JPY") }
    }
}

/// products.json `storefronts` and `prices` through validation: each problem at its line and column.
@Suite struct StorefrontValidationTests {
    static let products = """
    { "currency": "USD",
      "exchange_rates": { "EUR": 1.08, "JPY": 0.0067, "GBP": 1.27 },
      "storefronts": { "DE": "EUR", "FR": "EUR", "JP": "JPY", "GB": "GBP" },
      "offerings": { "chorus_plus": { "plans": {
          "monthly": { "product_id": "chorus.plus.monthly", "price": 9.99, "period": "P1M", "prices": { "EUR": 10.99, "JPY": 1200, "GBP": 8.99 } },
          "annual":  { "product_id": "chorus.plus.annual",  "price": 59.99, "period": "P1Y", "prices": { "EUR": 79.99, "JPY": 12000, "GBP": 49.99 } } } },
        "flat": { "plans": {
          "monthly": { "product_id": "flat.monthly", "price": 5, "period": "P1M", "prices": { "EUR": 5, "JPY": 700, "GBP": 4 } },
          "annual":  { "product_id": "flat.annual",  "price": 60, "period": "P1Y", "prices": { "EUR": 60, "JPY": 8000, "GBP": 48 } } } } } }
    """

    func validate(_ products: String, experiment: String = validExperiment) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", products)
        folder.write("a.json", experiment)
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func errorsOf(_ r: ExperimentLoader.Report) -> [Diagnostic] { r.diagnostics.filter { $0.severity == .error } }

    @Test func storefrontsAndPricesAreRead() throws {
        let report = validate(Self.products)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let products = try #require(report.catalog?.products)
        #expect(products.storefronts == ["DE": "EUR", "FR": "EUR", "JP": "JPY", "GB": "GBP"])
        #expect(products.offerings["chorus_plus"]?["annual"]?.prices == ["EUR": 79.99, "JPY": 12000, "GBP": 49.99])
        // A claim that differs from the default's is correct, not an error: 1 − 79.99/131.88 = 0.3935 → Save 39%;
        // 1 − 12000/14400 = 0.1667 → Save 16%.
        #expect(try products.discountText(.percentOff, offering: "chorus_plus", in: "EUR") == "Save 39%")
        #expect(try products.discountText(.percentOff, offering: "chorus_plus", in: "JPY") == "Save 16%")
        #expect(try products.discountText(.percentOff, offering: "chorus_plus") == "Save 49%")
    }

    @Test func aClaimOfZeroInOneStorefrontNamesTheStorefront() {
        // GBP 4.99 a month and 59.88 a year: 12 × monthly, so Save 0% in GB only.
        let products = Self.products.replacingOccurrences(of: "\"GBP\": 8.99", with: "\"GBP\": 4.99").replacingOccurrences(of: "\"GBP\": 49.99", with: "\"GBP\": 59.88")
        let errors = errorsOf(validate(products))
        #expect(errors.map(\.code) == ["discount_claim", "discount_claim"], "\(errors)")   // percent_off and months_free arms
        #expect(errors[0].message == "percent_off cannot be shown for 'chorus_plus' in storefront GB (GBP): the computed claim \"Save 0%\" is not a discount", "\(errors[0].message)")
        #expect(errors[1].message.contains("months_free cannot be shown for 'chorus_plus' in storefront GB (GBP)"))
        #expect(errors.allSatisfy { $0.file.hasSuffix("a.json") })
        // Line 16 of validExperiment holds the percent_off arm's discount_framing.
        let line = validExperiment.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"percent_off\"") }! + 1
        #expect(errors[0].position.line == line)
    }

    @Test func anUnknownCurrencyIsNamedWhereItIs() {
        let products = Self.products.replacingOccurrences(of: "\"JP\": \"JPY\"", with: "\"JP\": \"JYP\"")
        let errors = errorsOf(validate(products))
        #expect(errors.map(\.code).first == "unknown_currency", "\(errors)")
        #expect(errors[0].message == "the currency of storefront JP, 'JYP', is not an ISO 4217 currency")
        #expect(errors[0].hint == "did you mean 'JPY'?")
        #expect(errors[0].file.hasSuffix("products.json"))
        #expect(errors[0].position == SourcePosition(line: 3, column: 52), "\(errors[0].position)")
        // A price keyed by a code that is no currency.
        let price = errorsOf(validate(Self.products.replacingOccurrences(of: "\"JPY\": 1200", with: "\"JPX\": 1200")))
        #expect(price.map(\.code).contains("unknown_currency"), "\(price)")
    }

    @Test func aStorefrontWithoutAPriceOrARateIsNamed() {
        // The annual plan of chorus_plus lacks its JPY price.
        let noPrice = Self.products.replacingOccurrences(of: "\"EUR\": 79.99, \"JPY\": 12000, ", with: "\"EUR\": 79.99, ")
        let errors = errorsOf(validate(noPrice))
        #expect(errors.map(\.code) == ["missing_price"], "\(errors)")
        #expect(errors[0].message == "plan 'annual' of offering 'chorus_plus' has no JPY price, which storefront JP needs")
        #expect(errors[0].position.line == 6)
        // Two storefronts in one currency are both named; a plan with no prices at all is named at its key.
        let noEUR = Self.products.replacingOccurrences(of: #""prices": { "EUR": 5, "JPY": 700, "GBP": 4 }"#, with: #""prices": { "JPY": 700, "GBP": 4 }"#)
        #expect(errorsOf(validate(noEUR)).map(\.message) == ["plan 'monthly' of offering 'flat' has no EUR price, which storefronts DE, FR need"])
        let noRate = Self.products.replacingOccurrences(of: "\"GBP\": 1.27 ", with: "")
            .replacingOccurrences(of: "\"JPY\": 0.0067, ", with: "\"JPY\": 0.0067 ")
        let rate = errorsOf(validate(noRate))
        #expect(rate.map(\.code) == ["missing_exchange_rate"], "\(rate)")
        #expect(rate.first?.message == "storefront GB is priced in GBP, which has no rate in exchange_rates")
        #expect(rate.first?.position.line == 3)
    }

    @Test func badCountriesAndPricesAreNamed() {
        let products = Self.products.replacingOccurrences(of: "\"DE\": \"EUR\"", with: "\"de\": \"EUR\"")
            .replacingOccurrences(of: "\"GBP\": 8.99", with: "\"GBP\": 0").replacingOccurrences(of: "\"GBP\": 4 }", with: "\"GBP\": 4, \"USD\": 5 }")
        let codes = errorsOf(validate(products)).map(\.code)
        #expect(codes == ["bad_country", "bad_price", "bad_price"], "\(codes)")
        // A price in a currency no storefront uses is a warning.
        let unused = validate(Self.products.replacingOccurrences(of: "\"GBP\": 4 }", with: "\"GBP\": 4, \"CHF\": 5 }"))
        #expect(unused.diagnostics.map(\.code) == ["unused_price"], "\(unused.diagnostics)")
    }
}
