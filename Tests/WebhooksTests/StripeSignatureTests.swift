import Foundation
import Testing
@testable import Webhooks

/// `Stripe-Signature` cases judged first by Stripe's own library (Fixtures/stripe/signatures.py,
/// stripe 16.1.0): abctl accepts exactly the ones it accepts.
struct StripeSignatureTests {
    struct Case: Decodable {
        var name: String
        var body: String
        var header: String?
        var accepted: Bool
        var now: Double
    }

    static func cases() throws -> [Case] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/stripe/signatures", withExtension: "json"))
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: url))
    }

    static let verifier = StripeSignature(secrets: ["whsec_current_5fJ2kQ", "whsec_previous_Lm9xTz"], toleranceSeconds: 300)

    @Test func agreesWithStripesLibraryOnEveryCase() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 25)
        #expect(cases.filter(\.accepted).count >= 10 && cases.filter { !$0.accepted }.count >= 15)
        for c in cases {
            var accepted = true
            do {
                try Self.verifier.verify(header: c.header, body: Array(c.body.utf8), now: c.now)
            } catch {
                accepted = false
                #expect(error.kind == .unverified, "\(c.name): \(error)")
            }
            #expect(accepted == c.accepted, "\(c.name): abctl \(accepted ? "accepts" : "refuses"), Stripe \(c.accepted ? "accepts" : "refuses")")
        }
    }

    @Test func oneSecretAloneRefusesTheOtherOnesSignatures() throws {
        let only = StripeSignature(secrets: ["whsec_current_5fJ2kQ"], toleranceSeconds: 300)
        let rotated = try #require(try Self.cases().first { $0.name == "rotated_previous_secret" })
        #expect(throws: WebhookError.self) { try only.verify(header: rotated.header, body: Array(rotated.body.utf8), now: rotated.now) }
        let good = try #require(try Self.cases().first { $0.name == "good" })
        try only.verify(header: good.header, body: Array(good.body.utf8), now: good.now)
    }

    @Test func toleranceZeroAcceptsAnyAge() throws {
        let expired = try #require(try Self.cases().first { $0.name == "expired_a_day" })
        let unlimited = StripeSignature(secrets: ["whsec_current_5fJ2kQ"], toleranceSeconds: 0)
        try unlimited.verify(header: expired.header, body: Array(expired.body.utf8), now: expired.now)
        #expect(throws: WebhookError.self) { try Self.verifier.verify(header: expired.header, body: Array(expired.body.utf8), now: expired.now) }
    }

    @Test func aBodyThatIsNotUTF8IsRefused() throws {
        let body: [UInt8] = [0x7B, 0xFF, 0x7D]
        let t = 1_764_590_400
        var signed = Array("\(t).".utf8)
        signed += body
        let signature = String(decoding: OpenSSL.hex(OpenSSL.hmacSHA256(key: Array("whsec_current_5fJ2kQ".utf8), data: signed)), as: UTF8.self)
        #expect(throws: WebhookError.self) { try Self.verifier.verify(header: "t=\(t),v1=\(signature)", body: body, now: Double(t)) }
    }

    /// RFC 4231 test case 2: the HMAC is OpenSSL's, checked against the published value.
    @Test func hmacMatchesRFC4231() {
        let mac = OpenSSL.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(String(decoding: OpenSSL.hex(mac), as: UTF8.self) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
