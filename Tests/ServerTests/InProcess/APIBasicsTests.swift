import Foundation
import Testing

/// Endpoints that need no stored data, and their errors, in process (moved from
/// EndToEndTests/ServeBasicsTests; keep-alive, limits and slow clients stay there).
@Suite struct APIBasicsTests {
    @Test func healthzCountsTheExperiments() async throws {
        let server = try InProcessServer()
        let reply = await server.request("GET", "/healthz")
        #expect(reply.status == 200)
        #expect(reply.json?["status"] as? String == "ok")
        #expect(reply.json?["experiments"] as? Int == 5, "four experiments and the global holdout")
    }

    @Test func openAPIDocumentDescribesEveryEndpoint() async throws {
        let server = try InProcessServer()
        let reply = await server.request("GET", "/openapi.json")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/json")
        let doc = try #require(reply.json)
        #expect(doc["openapi"] as? String == "3.1.0")
        let paths = try #require(doc["paths"] as? [String: [String: Any]])
        let expected: [(String, String)] = [("/healthz", "get"), ("/metrics", "get"), ("/openapi.json", "get"), ("/v1/assign", "post"),
                                            ("/v1/events", "post"), ("/v1/webhooks/revenuecat", "post"), ("/v1/copy/check", "post"),
                                            ("/v1/experiments", "get"), ("/v1/experiments/{id}/report", "get"), ("/v1/diagnostics/copy", "get")]
        for (path, method) in expected {
            let op = try #require(paths[path]?[method] as? [String: Any], "\(method) \(path) missing")
            #expect(op["responses"] is [String: Any])
        }
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        #expect(schemas["Error"] != nil)
    }

    @Test func unknownPathsAndMethodsGetJSONErrors() async throws {
        let server = try InProcessServer()
        let notFound = await server.request("GET", "/v2/nothing")
        #expect(notFound.status == 404)
        #expect(notFound.errorCode == "not_found")
        #expect(notFound.headers["content-type"] == "application/json")
        let wrongMethod = await server.request("PUT", "/v1/assign", body: "{}")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.errorCode == "method_not_allowed")
        #expect(wrongMethod.headers["allow"] == "POST")
        let unknownReport = await server.request("GET", "/v1/experiments/no-such-thing/report")
        #expect(unknownReport.status == 404)
        #expect(unknownReport.errorCode == "experiment_not_found")
        let report = await server.request("GET", "/v1/experiments/chorus-paywall-copy/report")
        #expect(report.status == 200)
        #expect(report.json?["experiment"] as? String == "chorus-paywall-copy")
    }

    @Test func badJSONAndBadFieldsAre400NamingTheField() async throws {
        let server = try InProcessServer()
        let syntax = await server.request("POST", "/v1/copy/check", body: #"{"experiment": "#)
        #expect(syntax.status == 400)
        #expect(syntax.errorCode == "invalid_json")
        #expect((syntax.error?["message"] as? String)?.contains("byte") == true)
        let empty = await server.request("POST", "/v1/copy/check", body: "")
        #expect(empty.status == 400)
        #expect(empty.errorCode == "empty_body")
        let missing = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"ai"}"#)
        #expect(missing.status == 400)
        #expect(missing.errorCode == "missing_field")
        #expect(missing.error?["field"] as? String == "text")
        let wrongType = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":5,"text":"x"}"#)
        #expect(wrongType.status == 400)
        #expect(wrongType.error?["field"] as? String == "variant")
        let unknownField = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"x","usr_name":"A"}"#)
        #expect(unknownField.status == 400)
        #expect(unknownField.error?["field"] as? String == "usr_name")
    }

    @Test func copyCheckRunsTheGuard() async throws {
        let server = try InProcessServer()
        let good = await server.request("POST", "/v1/copy/check",
            body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"  \"Picture your next walk with every song named. Chorus can help.\" "}"#)
        #expect(good.status == 200)
        #expect(good.json?["accepted"] as? Bool == true)
        #expect(good.json?["text"] as? String == "Picture your next walk with every song named. Chorus can help.")
        #expect((good.json?["violations"] as? [Any])?.isEmpty == true)

        let bad = await server.request("POST", "/v1/copy/check",
            body: #"{"experiment":"chorus-paywall-copy","variant":"ai","text":"Sam, why not hear birds?","user_name":"Sam"}"#)
        #expect(bad.status == 200)
        #expect(bad.json?["accepted"] as? Bool == false)
        let rules = Set(((bad.json?["violations"] as? [[String: Any]]) ?? []).compactMap { $0["rule"] as? String })
        #expect(rules == ["forbid", "mention_once", "forbid_user_name"])

        let unknownExperiment = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"nope","variant":"ai","text":"x"}"#)
        #expect(unknownExperiment.status == 404)
        #expect(unknownExperiment.error?["field"] as? String == "experiment")
        let unknownVariant = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"zz","text":"x"}"#)
        #expect(unknownVariant.status == 404)
        #expect(unknownVariant.error?["field"] as? String == "variant")
        let noGuard = await server.request("POST", "/v1/copy/check", body: #"{"experiment":"chorus-paywall-copy","variant":"control","text":"x"}"#)
        #expect(noGuard.status == 400)
        #expect(noGuard.errorCode == "no_guard")
    }

    @Test func experimentsListsTheDefinitions() async throws {
        let server = try InProcessServer()
        let reply = await server.request("GET", "/v1/experiments")
        #expect(reply.status == 200)
        let experiments = try #require(reply.json?["experiments"] as? [[String: Any]])
        #expect(Set(experiments.compactMap { $0["id"] as? String }) == ["chorus-paywall-copy", "chorus-trial-length", "chorus-discount-framing", "chorus-holdout", "chorus-voice"])
        // As written: experiments with their variants, the holdout with its fraction.
        #expect(experiments.allSatisfy { $0["$schema"] == nil && ($0["variants"] is [Any] || ($0["kind"] as? String == "holdout" && $0["fraction"] is Double)) })
        let products = try #require(reply.json?["products"] as? [String: Any])
        #expect(products["currency"] as? String == "USD")
    }

    /// The metrics half of ServeBasicsTests.metricsAndRequestLogs (the request log needs the process).
    @Test func metricsCountRequestsByRoute() async throws {
        let server = try InProcessServer()
        _ = await server.request("GET", "/healthz")
        _ = await server.request("GET", "/nothing")
        let reply = await server.request("GET", "/metrics")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true)
        let text = reply.text
        #expect(text.contains(#"abctl_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(text.contains(#"abctl_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 1"#))
        #expect(text.contains("# TYPE abctl_http_request_duration_seconds histogram"))
        #expect(text.contains(#"abctl_events_total{outcome="stored"} "#))
        #expect(text.contains(#"abctl_reloads_total{result="ok"} 0"#))
        #expect(text.contains("abctl_experiments_loaded 5"))
    }
}
