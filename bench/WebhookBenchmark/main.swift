// webhook-bench: webhook verification per second on one thread (see bench/webhooks.sh).
//
// Usage: webhook-bench [--seconds S] [--fixtures DIR]
// Verifies the "good" cases of the committed fixtures over and over on one thread: a Stripe
// signature (HMAC-SHA256 of the body under two secrets, as a rotation has it) and a Google
// Pub/Sub push token (RS256 over a 2048-bit key, then the claims), and prints verifications per
// second for each. DIR is Tests/WebhooksTests/Fixtures.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Webhooks

var seconds = 2.0
var fixtures = "Tests/WebhooksTests/Fixtures"
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--seconds": seconds = Double(args.popFirst() ?? "") ?? seconds
    case "--fixtures": fixtures = args.popFirst() ?? fixtures
    default: FileHandle.standardError.write(Data("webhook-bench: unknown argument \(a)\n".utf8)); exit(2)
    }
}

@MainActor func load(_ path: String) -> Any {
    guard let data = FileManager.default.contents(atPath: fixtures + "/" + path), let json = try? JSONSerialization.jsonObject(with: data) else {
        FileHandle.standardError.write(Data("webhook-bench: cannot read \(fixtures)/\(path)\n".utf8))
        exit(1)
    }
    return json
}

/// This process's CPU seconds (user and system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Runs `body` for about `seconds` of wall time; answers calls per wall second and per CPU
/// second (on a shared machine the second is what one core does).
@MainActor func rate(_ body: () -> Bool) -> (wall: Double, cpu: Double) {
    var calls = 0
    let start = Date(), cpuStart = cpuSeconds()
    var elapsed = 0.0
    while elapsed < seconds {
        for _ in 0..<200 { precondition(body(), "a good case failed to verify") }
        calls += 200
        elapsed = Date().timeIntervalSince(start)
    }
    return (Double(calls) / elapsed, Double(calls) / (cpuSeconds() - cpuStart))
}

let stripeCases = load("stripe/signatures.json") as! [[String: Any]]
let stripeGood = stripeCases.first { $0["name"] as? String == "good" }!
let stripe = StripeSignature(secrets: ["whsec_previous_Lm9xTz", "whsec_current_5fJ2kQ"], toleranceSeconds: 300)
let stripeBody = Array((stripeGood["body"] as! String).utf8), stripeHeader = stripeGood["header"] as! String, stripeNow = stripeGood["now"] as! Double
let stripeRate = rate { (try? stripe.verify(header: stripeHeader, body: stripeBody, now: stripeNow)) != nil }

let tokens = load("googleplay/tokens.json") as! [[String: Any]]
let tokenGood = tokens.first { $0["name"] as? String == "good" }!
let jwks = FileManager.default.contents(atPath: fixtures + "/googleplay/jwks.json")!
let google = try GooglePushVerifier(certificates: [UInt8](jwks), audience: "https://abctl.example.com/v1/webhooks/googleplay",
                                    account: "play-push@chorus-app.iam.gserviceaccount.com")
let authorization = "Bearer " + (tokenGood["token"] as! String), tokenNow = Int64(tokenGood["now"] as! Int)
let googleRate = rate { (try? google.verify(authorization: authorization, now: tokenNow)) != nil }

print("stripe signature (HMAC-SHA256, 2 secrets): \(Int(stripeRate.cpu)) verifications per CPU second (\(Int(stripeRate.wall)) per wall second)")
print("google push token (RS256 2048-bit + claims): \(Int(googleRate.cpu)) verifications per CPU second (\(Int(googleRate.wall)) per wall second)")
