import Foundation
import Testing
@testable import Server

@Suite struct LogTests {
    /// The request log's timestamps are computed without `gmtime_r`; they must agree with it
    /// everywhere, leap days and centuries included.
    @Test func timestampsMatchGmtime() {
        var generator = SystemRandomNumberGenerator()
        var instants: [Int64] = [0, -1, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_399, 4_107_542_400, 1_796_083_199, -2_208_988_800]
        instants += (0..<20_000).map { _ in Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator) }
        for seconds in instants {
            var out: [UInt8] = []
            Log.appendTimestamp(seconds: seconds, milliseconds: 7, to: &out)
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.007Z", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                                  parts.tm_hour, parts.tm_min, parts.tm_sec)
            #expect(String(decoding: out, as: UTF8.self) == expected, "\(seconds)")
        }
    }
}
