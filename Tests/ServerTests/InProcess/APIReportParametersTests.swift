import Foundation
import Reporting
import Testing

/// `GET /v1/experiments/{id}/report`'s query parameters, in process (they were
/// tested only through the binary). Every refusal is 400 naming the parameter in `field`; dates
/// take RFC 3339 or `YYYY-MM-DD`, percent-encoded or not; `by` repeated or comma-separated is the
/// same split. That the CLI accepts and refuses the same table stays end to end
/// (EndToEndTests/ReportInputsAgreeTests: it runs the binary).
@Suite struct APIReportParametersTests {
    static let experiment = "chorus-trial-length"
    static let now = Date(timeIntervalSince1970: 1_796_860_800) // 2026-12-10T00:00:00Z

    /// 200 exposures over 1-8 December, in two countries and two platforms, some with a trial.
    static func server() async throws -> InProcessServer {
        let server = try InProcessServer(options: { $0.reportClock = Self.now })
        var lines: [String] = []
        for i in 0..<200 {
            let arm = i % 2 == 0 ? "trial-7d" : "trial-3d"
            let country = ["US", "DE"][i % 3 == 0 ? 1 : 0], platform = i % 4 < 2 ? "ios" : "android"
            let day = 1 + i % 8
            lines.append(#"{"event_id":"x\#(i)","type":"exposure","user_id":"u\#(i)","experiment":"\#(experiment)","variant":"\#(arm)","ts":"2026-12-0\#(day)T10:00:00Z","attributes":{"country":"\#(country)","platform":"\#(platform)"}}"#)
            if i % 5 == 0 {
                lines.append(#"{"event_id":"t\#(i)","type":"trial_started","user_id":"u\#(i)","ts":"2026-12-0\#(day)T10:05:00Z","product_id":"chorus.plus.annual"}"#)
            }
        }
        let stored = await server.request("POST", "/v1/events", headers: ["Content-Type": "application/x-ndjson"], body: lines.joined(separator: "\n") + "\n")
        #expect(stored.status == 200 && stored.json?["stored"] as? Int == lines.count, "\(stored.text)")
        return server
    }

    /// (query, the field a 400 names; nil: accepted)
    static let cases: [(String, String?)] = [
        ("", nil),
        ("since=2026-12-03", nil),
        ("since=2026-12-03T06:00:00Z", nil),
        ("since=2026-12-03T06%3A00%3A00Z", nil),
        ("until=2026-12-05", nil),
        ("alpha=0.1", nil),
        ("by=country", nil),
        ("by=country,platform", nil),
        ("by=country&by=platform", nil),
        ("min_segment_users=50", nil),
        ("since=yesterday", "since"),
        ("until=2026-13-01", "until"),
        ("since=2026-12-05&until=2026-12-01", "since"),
        ("since=2026-12-01&until=2026-12-01", "since"),
        ("alpha=0.5", "alpha"),
        ("alpha=0", "alpha"),
        ("alpha=abc", "alpha"),
        ("by=contry", "by"),
        ("by=", "by"),
        ("by=country,", "by"),
        ("by=country,,platform", "by"),
        ("min_segment_users=0", "min_segment_users"),
        ("min_segment_users=1.5", "min_segment_users"),
        ("sinse=2026-12-01", "sinse"),
    ]

    @Test func eachParameterIsAcceptedOrRefusedNamingIt() async throws {
        let server = try await Self.server()
        for (query, refused) in Self.cases {
            let reply = await server.request("GET", "/v1/experiments/\(Self.experiment)/report" + (query.isEmpty ? "" : "?" + query))
            if let field = refused {
                #expect(reply.status == 400, "\(query): \(reply.status) \(reply.text.prefix(300))")
                #expect(reply.errorCode == "invalid_parameter", "\(query): \(reply.text)")
                #expect(reply.error?["field"] as? String == field, "\(query): \(reply.text)")
                let message = reply.error?["message"] as? String ?? ""
                #expect(message.contains("'\(field)'"), "\(query): the message names the parameter: \(message)")
            } else {
                #expect(reply.status == 200, "\(query): \(reply.status) \(reply.text.prefix(300))")
                #expect(reply.json?["experiment"] as? String == Self.experiment, "\(query)")
            }
        }
    }

    @Test func theTwoDateFormsAndTheTwoSplitFormsGiveTheSameReport() async throws {
        let server = try await Self.server()
        func report(_ query: String) async -> NSDictionary? {
            let reply = await server.request("GET", "/v1/experiments/\(Self.experiment)/report?" + query)
            #expect(reply.status == 200, "\(query): \(reply.text.prefix(300))")
            return reply.json.map { $0 as NSDictionary }
        }
        let date = await report("since=2026-12-03&until=2026-12-07")
        let time = await report("since=2026-12-03T00:00:00Z&until=2026-12-07T00:00:00Z")
        let encoded = await report("since=2026-12-03T00%3A00%3A00Z&until=2026-12-07T00%3A00%3A00Z")
        #expect(date != nil && date == time && time == encoded)
        #expect(date?["since"] as? String == "2026-12-03T00:00:00Z")
        #expect(date?["users"] as? Int == 100, "four of the eight days' 200 users")

        let comma = await report("by=country,platform&min_segment_users=10")
        let repeated = await report("by=country&by=platform&min_segment_users=10")
        #expect(comma != nil && comma == repeated)
        let segments = comma?["segments"] as? [String: Any]
        #expect(Set(segments?.keys.map { $0 } ?? []) == ["country", "platform"])
        #expect((comma?["alpha"] as? Double) == 0.05)
        #expect((await report("alpha=0.1"))?["alpha"] as? Double == 0.1)
    }

    @Test func theDocumentedParametersAreTheOnesTheHandlerTakes() async throws {
        let server = try await Self.server()
        // Every declared parameter is taken (a good value of each), and nothing else is.
        let good = ["since": "2026-12-02", "until": "2026-12-08", "alpha": "0.1", "by": "country", "min_segment_users": "5"]
        #expect(Set(ReportParameters.all.map(\.name)) == Set(good.keys))
        for parameter in ReportParameters.all {
            let reply = await server.request("GET", "/v1/experiments/\(Self.experiment)/report?\(parameter.name)=\(good[parameter.name]!)")
            #expect(reply.status == 200, "\(parameter.name): \(reply.text.prefix(300))")
        }
    }
}
