import Foundation

/// The one rule for a paywall's discount claim and its money text, in every storefront's
/// currency and prices, in exact decimal arithmetic: the server computes it from
/// products.json (`Products.discountText`), the AbctlClient from the prices StoreKit reports
/// (`Decimal`), so both give the same text for the same prices.
///
/// - `percent_off`: `Save N%`, N = floor(100 × (1 − annual / (12 × monthly)));
/// - `months_free`: `N months free` (`1 month free`), N = floor(12 − annual / monthly);
/// - `per_week`: annual / 52 in the currency, rounded half up to its minor units (`$1.15/week`, `¥29/week`).
///
/// A claim of zero or less (a per-week price that rounds to zero) is refused.
public enum DiscountClaim {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case needsMonthlyAndAnnual
        case claimNotPositive(String)

        public var description: String {
            switch self {
            case .needsMonthlyAndAnnual: "a discount needs a monthly (P1M) and an annual (P1Y) plan"
            case .claimNotPositive(let claim): "the computed claim \"\(claim)\" is not a discount"
            }
        }
    }

    /// The claim for `framing` at these prices (in `currency`); nil for `.none`.
    public static func text(_ framing: DiscountFraming, monthly: Decimal?, annual: Decimal?, currency: String) throws(Problem) -> String? {
        switch framing {
        case .none:
            return nil
        case .percentOff:
            guard let monthly, let annual, monthly > 0 else { throw .needsMonthlyAndAnnual }
            // 100 × (1 − a / 12m) = (1200m − 100a) / 12m, floored exactly.
            let n = floorDivide(1200 * monthly - 100 * annual, by: 12 * monthly)
            guard n > 0 else { throw .claimNotPositive("Save \(n)%") }
            return "Save \(n)%"
        case .monthsFree:
            guard let monthly, let annual, monthly > 0 else { throw .needsMonthlyAndAnnual }
            let n = floorDivide(12 * monthly - annual, by: monthly)
            guard n > 0 else { throw .claimNotPositive("\(n) months free") }
            return n == 1 ? "1 month free" : "\(n) months free"
        case .perWeek:
            guard let annual else { throw .needsMonthlyAndAnnual }
            let minor = minorUnits(annual, over: 52, currency: currency)
            let text = format(minor: minor, currency: currency) + "/week"
            guard minor > 0 else { throw .claimNotPositive(text) }
            return text
        }
    }

    /// `amount` as text: the symbol first (`$` USD, `€` EUR, `£` GBP, `¥` JPY, `₩` KRW; any other
    /// currency its ISO code and a space), `,` grouping, `.` decimals, the currency's ISO 4217 minor
    /// units, rounded half up; never a device locale (`¥1,500`, `€10.99`, `CHF 9.90`).
    public static func format(_ amount: Decimal, currency: String) -> String {
        format(minor: minorUnits(amount, over: 1, currency: currency), currency: currency)
    }

    /// `format` for a price read from products.json (its shortest decimal form, so 9.99 is 9.99).
    public static func format(_ amount: Double, currency: String) -> String {
        format(decimal(amount), currency: currency)
    }

    /// A products.json number as the decimal it was written as: Swift prints a Double's shortest
    /// round-trip form, which is the literal for any price a person types.
    public static func decimal(_ value: Double) -> Decimal {
        Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
    }

    /// ISO 4217 minor units: how many decimals the currency's amounts have.
    public static func minorUnitDigits(_ currency: String) -> Int {
        if zeroDecimalCurrencies.contains(currency) { return 0 }
        if threeDecimalCurrencies.contains(currency) { return 3 }
        if currency == "CLF" || currency == "UYW" { return 4 }
        return 2
    }

    public static func symbol(_ currency: String) -> String {
        switch currency {
        case "USD": "$"
        case "EUR": "€"
        case "GBP": "£"
        case "JPY": "¥"
        case "KRW": "₩"
        default: currency + " "
        }
    }

    /// Whether `code` is an ISO 4217 currency (the active list, funds and metals included).
    public static func isCurrency(_ code: String) -> Bool { iso4217.contains(code) }

    // MARK: Exact arithmetic

    /// (amount / divisor) in the currency's minor units, rounded half up: floor((2 × amount × 10^d + divisor) / (2 × divisor)).
    static func minorUnits(_ amount: Decimal, over divisor: Decimal, currency: String) -> Int {
        var scale = Decimal(1)
        for _ in 0..<minorUnitDigits(currency) { scale *= 10 }
        return floorDivide(2 * amount * scale + divisor, by: 2 * divisor)
    }

    /// floor(num / den) for den > 0, exact: Decimal's quotient (38 digits) is corrected by
    /// multiplying back, so an exact ratio (60 / 120) never floors one below.
    static func floorDivide(_ num: Decimal, by den: Decimal) -> Int {
        var quotient = num / den
        var floored = Decimal()
        NSDecimalRound(&floored, &quotient, 0, .down)
        var n = NSDecimalNumber(decimal: floored).intValue
        while Decimal(n + 1) * den <= num { n += 1 }
        while Decimal(n) * den > num { n -= 1 }
        return n
    }

    /// `minor` units of `currency` as text: `$1,234.50`, `¥1,500`, `KWD 1.250`.
    static func format(minor: Int, currency: String) -> String {
        let digits = minorUnitDigits(currency)
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let magnitude = minor.magnitude
        let whole = String(magnitude / UInt(scale))
        var grouped = ""
        for (i, c) in whole.enumerated() {
            if i > 0 && (whole.count - i) % 3 == 0 { grouped.append(",") }
            grouped.append(c)
        }
        var text = (minor < 0 ? "-" : "") + symbol(currency) + grouped
        if digits > 0 {
            let fraction = String(magnitude % UInt(scale))
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }

    static let zeroDecimalCurrencies: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    static let threeDecimalCurrencies: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// ISO 4217's list of codes in use.
    static let iso4217: Set<String> = Set("""
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
        CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
        GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW
        KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD
        NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE
        SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED
        VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG ZWL
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
}
