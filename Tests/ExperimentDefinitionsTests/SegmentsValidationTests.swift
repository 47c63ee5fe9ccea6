import Assignment
import Testing
import TestSupport
@testable import ExperimentDefinitions

private let longName = "[\"" + String(repeating: "x", count: 257) + "\"]"
private let thirtyThreeNames: String = "[" + (0..<33).map { (i: Int) -> String in "\"a\(i)\"" }.joined(separator: ",") + "]"

/// `segments` and `metrics.adjust_for` name exposure attributes.
@Suite struct SegmentsValidationTests {
    func validate(_ text: String) -> ExperimentLoader.Report {
        let folder = TemporaryFolder()
        folder.write("products.json", productsJSON)
        folder.write("a.json", text)
        return withExtendedLifetime(folder) { ExperimentFiles.validate(paths: [folder.path]) }
    }

    func withKeys(segments: String?, adjustFor: String?) -> String {
        var text = validExperiment
        if let adjustFor {
            text = text.replacingOccurrences(of: "\"guardrails\": [\"day0_cancel_rate\"]", with: "\"guardrails\": [\"day0_cancel_rate\"], \"adjust_for\": \(adjustFor)")
        }
        if let segments {
            text = text.replacingOccurrences(of: "\"forced\":", with: "\"segments\": \(segments),\n  \"forced\":")
        }
        return text
    }

    @Test func segmentsAndAdjustForAreRead() throws {
        let report = validate(withKeys(segments: #"["acquisition_channel", "plan_shown"]"#, adjustFor: #"["country", "platform"]"#))
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        let e = try #require(report.catalog?.experiment("exp-a"))
        #expect(e.segments == ["acquisition_channel", "plan_shown"])
        #expect(e.metrics.adjustFor == ["country", "platform"])
        #expect(e.segmentDimensions == Segments.standardDimensions + ["acquisition_channel", "plan_shown"])
    }

    @Test func withoutThemNothingChanges() throws {
        let e = try #require(validate(validExperiment).catalog?.experiment("exp-a"))
        #expect(e.segments.isEmpty && e.metrics.adjustFor.isEmpty)
        #expect(e.segmentDimensions == Segments.standardDimensions)
    }

    @Test(arguments: [
        (#"["a", "a"]"# as String?, nil as String?, "duplicate_value", 12),
        (#"["a", 7]"#, nil, "wrong_type", 12),
        (#"[""]"#, nil, "bad_attribute_name", 12),
        (#""country""#, nil, "wrong_type", 12),
        (nil, #"["country", "country"]"#, "duplicate_value", 11),
        (nil, #"[true]"#, "wrong_type", 11),
        (nil, longName, "bad_attribute_name", 11),
        (nil, thirtyThreeNames, "too_many_values", 11),
    ])
    func badNamesAreErrorsAtTheirLine(segments: String?, adjustFor: String?, code: String, line: Int) {
        let report = validate(withKeys(segments: segments, adjustFor: adjustFor))
        let found = report.diagnostics.filter { $0.code == code }
        #expect(!found.isEmpty, "expected \(code), got \(report.diagnostics.map { "\($0.code) \($0.message)" })")
        #expect(found.first?.position.line == line)
        #expect(report.catalog == nil)
    }

    @Test func aStandardDimensionListedIsAWarningOnly() throws {
        let report = validate(withKeys(segments: #"["country"]"#, adjustFor: nil))
        #expect(report.diagnostics.map(\.code) == ["segment_always_kept"])
        #expect(report.diagnostics.first?.severity == .warning)
        #expect(try #require(report.catalog?.experiment("exp-a")).segmentDimensions == Segments.standardDimensions)
    }
}
