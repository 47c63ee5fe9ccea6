import Foundation

/// RFC 3339 timestamps, the project's only reader and writer of them, without Foundation's
/// formatters (slow and locale-sensitive).
///
/// `parseMicroseconds` reads bytes straight from an ingest buffer; `parse` is the same reader
/// for strings (experiment dates, `--since`, `ABCTL_NOW`).
public enum RFC3339 {
    /// `YYYY-MM-DD(T|t| )HH:MM:SS(.fraction)?(Z|z|±HH:MM)` to microseconds since 1970; fractions
    /// beyond microseconds are truncated; a leap second (`:60`) is read as the last microsecond
    /// of that minute. nil when malformed.
    public static func parseMicroseconds(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let n = s.count
        func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var v = 0
            for k in 0..<count {
                let c = s[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += count
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < n, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        guard i < n, s[i] == 0x54 || s[i] == 0x74 || s[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), var second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var micros = 0
        if i < n, s[i] == 0x2E {
            i += 1
            var count = 0
            while i < n, s[i] >= 0x30, s[i] <= 0x39 {
                if count < 6 { micros = micros * 10 + Int(s[i] - 0x30) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 6) { micros *= 10 }
        }
        if second == 60 { second = 59; micros = 999_999 }
        guard i < n else { return nil }
        var offsetSeconds = 0
        if s[i] == 0x5A || s[i] == 0x7A {
            i += 1
        } else if s[i] == 0x2B || s[i] == 0x2D {
            let sign = s[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == n else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return seconds * 1_000_000 + Int64(micros)
    }

    /// `parseMicroseconds` for a string, as a `Date`.
    public static func parse(_ text: String) -> Date? {
        var text = text
        guard let micros = text.withUTF8({ parseMicroseconds($0) }) else { return nil }
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    /// `2026-12-01T10:00:00Z` (whole seconds; a fraction when there is one, to milliseconds).
    public static func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        let whole = Int64(floor(t))
        let millis = Int((t - Double(whole)) * 1000 + 0.5)
        let days = Int(floorDiv(whole, 86400))
        let rem = Int(whole - Int64(days) * 86400)
        let (y, m, d) = civilFromDays(days)
        var s = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
        if millis > 0 && millis < 1000 { s += String(format: ".%03d", millis) }
        return s + "Z"
    }

    /// The UTC day of `date`: `2026-12-01`.
    public static func formatDay(_ date: Date) -> String { String(format(date).prefix(10)) }

    /// Microseconds since 1970 in UTC, with a fraction (trailing zeros dropped) only when there is one.
    public static func format(microseconds: Int64) -> String {
        var seconds = microseconds / 1_000_000
        var micros = microseconds % 1_000_000
        if micros < 0 { micros += 1_000_000; seconds -= 1 }
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        var out = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(Int(rest / 3600), 2)):\(pad(Int(rest % 3600 / 60), 2)):\(pad(Int(rest % 60), 2))"
        if micros != 0 {
            var frac = pad(Int(micros), 6)
            while frac.hasSuffix("0") { frac.removeLast() }
            out += "." + frac
        }
        return out + "Z"
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm:
    /// 400-year cycles of 146097 days, years starting in March so the leap day falls last).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9          // March = 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468                        // 719468 = days from 0000-03-01 to 1970-01-01
    }

    /// Days since 1970-01-01 to (year, month, day): the inverse of `daysSinceEpoch`.
    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
