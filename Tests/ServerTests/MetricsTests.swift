import Dispatch
import Testing
@testable import Server

@Suite struct MetricsTests {
    /// Threads record into different shards; the exposition adds them up.
    @Test func countsFromManyThreadsAddUp() {
        let metrics = Metrics()
        DispatchQueue.concurrentPerform(iterations: 16) { n in
            for i in 0..<500 {
                metrics.request(route: "/v1/assign", method: "POST", status: i % 10 == 0 ? 400 : 200, seconds: 0.001953125)   // 2^-9: sums exactly
                if n == 0 && i < 3 { metrics.request(route: "/healthz", method: "GET", status: 200, seconds: 0.0001) }
            }
        }
        let text = metrics.render()
        #expect(text.contains(#"abctl_http_requests_total{route="/v1/assign",method="POST",status="200"} 7200"#), "\(text)")
        #expect(text.contains(#"abctl_http_requests_total{route="/v1/assign",method="POST",status="400"} 800"#))
        #expect(text.contains(#"abctl_http_requests_total{route="/healthz",method="GET",status="200"} 3"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_bucket{route="/v1/assign",le="0.001"} 0"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_bucket{route="/v1/assign",le="0.0025"} 8000"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_count{route="/v1/assign"} 8000"#))
        #expect(text.contains(#"abctl_http_request_duration_seconds_sum{route="/v1/assign"} 15.625"#))
    }
}
