import Events
import ExperimentDefinitions
import Foundation
import Server
import Testing
import TestSupport

/// `GET /placements`: each audience's share of its placement's exposures in the last 7 days,
/// attributed by the exposure's placement and experiment.
@Suite(.timeLimit(.minutes(3)))
struct ConsolePlacementSharesTests {
    @Test func eachAudienceShowsItsShareOfThePlacementsExposuresInTheLast7Days() async throws {
        typealias F = EventFactory
        let server = try InProcessServer(options: {
            $0.keys = try APIKeys.parse(environment: ConsoleSignInTests.keys)
            $0.reportClock = F.at(200).date
        })
        let hostile = #"<script>alert(1)</script><img src=x onerror="alert(2)">"#
        var events: [Event] = []
        func exposures(_ n: Int, _ experiment: String, _ placement: String?, hours: Double) {
            for i in 0..<n {
                events.append(F.exposure(EventID("\(experiment)-\(placement ?? "none")-\(hours)-\(i)"), user: UserID("u\(events.count)"),
                                         experiment: experiment, variant: "control", hours: hours, placement: placement))
            }
        }
        exposures(3, "chorus-paywall-copy", "onboarding_end", hours: 100)
        exposures(1, "chorus-trial-length", "onboarding_end", hours: 150)
        // Older than 7 days before the clock (hour 32): not counted.
        exposures(5, "chorus-trial-length", "onboarding_end", hours: 10)
        // An experiment no audience of the placement shows now, its id written by an event.
        exposures(1, hostile, "onboarding_end", hours: 199)
        exposures(2, "chorus-voice", "feature_gate", hours: 120)
        // No placement: no placement's.
        exposures(4, "chorus-voice", nil, hours: 120)
        _ = try server.store.appendAndWait(events)

        let browser = ConsoleBrowser(server)
        #expect(await browser.signIn(ConsoleSignInTests.reportKey).status == 303)
        let page = await browser.request("GET", "/placements")
        #expect(page.status == 200)
        let text = page.text
        let onboarding = try #require(text.range(of: "<code>onboarding_end</code>"))
        let gate = try #require(text.range(of: "<code>feature_gate</code>"))
        let first = String(text[onboarding.upperBound..<gate.lowerBound]), second = String(text[gate.upperBound...])
        #expect(first.contains("5 exposures in the last 7 days"))
        #expect(first.contains("<td>new-ios</td>") && first.contains("<td>60% (3)</td>"))
        #expect(first.contains("<td>20% (1)</td></tr><tr><td></td><td>default</td>"))
        #expect(first.contains("<td>no audience now</td>"))
        #expect(first.contains("experiment <code>\(HTMLEscape.escape(hostile))</code></td><td>20% (1)</td>"))
        #expect(second.contains("2 exposures in the last 7 days"))
        #expect(second.contains("<td>web</td><td><code>{&quot;platform&quot;:&quot;web&quot;}</code></td><td>no paywall</td><td>sends no exposure</td>"))
        #expect(second.contains("chorus-discount-framing</code></a> (") && second.contains("<td>0% (0)</td>"))
        #expect(second.contains("<td>100% (2)</td>"))
        #expect(text.contains("its placement and its experiment"))
        ConsolePagesTests.expectNoInlineScriptOrStyle(text)
        #expect(!text.contains("<img"))
    }
}
