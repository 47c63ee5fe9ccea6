/// Checks a `Stripe-Signature` header as Stripe's own libraries do
/// (`stripe.WebhookSignature.verify_header`, whose every decision the test fixture records):
///
/// - the header is comma-separated `key=value` items; the first `t` is the timestamp (an
///   integer as Python's `int` reads one: surrounding spaces, a sign, underscores between
///   digits), every `v1` a candidate signature (the value ends at a second `=`, if any); a `t`
///   or `v1` item without `=` spoils the header;
/// - HMAC-SHA256 under a secret of `"<t as a plain integer>.<raw body>"`, in lowercase hex,
///   must equal one `v1` byte for byte (compared in constant time). Several secrets (a rotation)
///   are each tried, as Stripe documents for rolling a secret;
/// - `t` may be at most `tolerance` seconds old (0: no limit, as in Stripe's library); a `t`
///   in the future is accepted, as Stripe's libraries accept it;
/// - the body must be UTF-8 (the libraries decode it before signing).
public struct StripeSignature: Sendable {
    public let secrets: [[UInt8]]
    public let toleranceSeconds: Int

    public init(secrets: [String], toleranceSeconds: Int = 300) {
        self.secrets = secrets.map { Array($0.utf8) }
        self.toleranceSeconds = toleranceSeconds
    }

    /// Throws `.unverified` unless the header signs `body` with one of the secrets within the
    /// tolerance of `now` (seconds since 1970).
    public func verify(header: String?, body: [UInt8], now: Double) throws(WebhookError) {
        guard let header, !header.isEmpty else {
            throw .unverified("no Stripe-Signature header", field: "Stripe-Signature")
        }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw .unverified("the body is not UTF-8, so Stripe cannot have signed it", field: "Stripe-Signature")
        }
        guard let parsed = Self.parse(header) else {
            throw .unverified("cannot read a timestamp 't' and signatures from the Stripe-Signature header", field: "Stripe-Signature")
        }
        guard !parsed.signatures.isEmpty else {
            throw .unverified("the Stripe-Signature header has no v1 signature", field: "Stripe-Signature")
        }
        var signed = Array(parsed.timestamp.utf8)
        signed.append(UInt8(ascii: "."))
        signed.append(contentsOf: body)
        var matched = false
        for secret in secrets where !Self.isBlank(secret) {
            let expected = OpenSSL.hex(OpenSSL.hmacSHA256(key: secret, data: signed))
            // Every candidate is compared, so the time does not tell which one matched.
            for candidate in parsed.signatures where OpenSSL.constantTimeEquals(expected, candidate) { matched = true }
        }
        guard matched else {
            throw .unverified("no v1 signature matches the body under the configured secrets", field: "Stripe-Signature")
        }
        if toleranceSeconds > 0, Self.isOlder(parsed.timestamp, than: now - Double(toleranceSeconds)) {
            throw .unverified("the signature's timestamp is more than \(toleranceSeconds) s old (see --stripe-tolerance-s)", field: "Stripe-Signature")
        }
    }

    /// The timestamp as a plain integer (`%d`) and the `v1` values, or nil when the header
    /// cannot be read.
    static func parse(_ header: String) -> (timestamp: String, signatures: [[UInt8]])? {
        var timestamp: String?
        var signatures: [[UInt8]] = []
        for item in header.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let pieces = item.split(separator: UInt8(ascii: "="), maxSplits: 2, omittingEmptySubsequences: false)
            let key = pieces[0]
            let isTimestamp = key.elementsEqual("t".utf8), isSignature = key.elementsEqual("v1".utf8)
            guard isTimestamp || isSignature else { continue }
            guard pieces.count >= 2 else { return nil }
            if isTimestamp {
                if timestamp == nil {
                    guard let value = pythonInteger(pieces[1]) else { return nil }
                    timestamp = value
                }
            } else {
                signatures.append(Array(pieces[1]))
            }
        }
        guard let timestamp else { return nil }
        return (timestamp, signatures)
    }

    /// What Python's `int()` makes of ASCII text, written back as `%d` writes it; nil where it raises.
    static func pythonInteger(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        var text = bytes[...]
        while let first = text.first, isSpace(first) { text = text.dropFirst() }
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        var negative = false
        if let sign = text.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            text = text.dropFirst()
        }
        var digits: [UInt8] = []
        var previousWasDigit = false
        for b in text {
            if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                digits.append(b)
                previousWasDigit = true
            } else if b == UInt8(ascii: "_") && previousWasDigit {
                previousWasDigit = false
            } else {
                return nil
            }
        }
        guard !digits.isEmpty, previousWasDigit else { return nil }
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst() }
        let magnitude = String(decoding: digits, as: UTF8.self)
        return negative && magnitude != "0" ? "-" + magnitude : magnitude
    }

    /// Python's whitespace among ASCII (what `int()` strips).
    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (0x09...0x0D).contains(b) || (0x1C...0x1F).contains(b)
    }

    /// Stripe's library refuses a secret of nothing but spaces.
    private static func isBlank(_ secret: [UInt8]) -> Bool {
        secret.allSatisfy { [0x20, 0x09, 0x0D, 0x0A, 0x0C, 0x0B].contains($0) }
    }

    /// Whether the integer `timestamp` (plain digits, maybe negative) is below `limit`.
    static func isOlder(_ timestamp: String, than limit: Double) -> Bool {
        let negative = timestamp.hasPrefix("-")
        let digits = timestamp.utf8.count - (negative ? 1 : 0)
        // Past 15 digits a Double is not exact, and no clock is near: the sign decides.
        if digits > 15 { return negative }
        return Double(timestamp)! < limit
    }
}
