import Foundation
import TestSupport
import Testing

/// One variable sizes every calibration suite: unset is the `make test` size, `full` the documented one,
/// a number a multiple of the `make test` size.
@Suite struct CalibrationSizeTests {
    @Test(arguments: [(nil, 40), ("", 40), ("full", 100), ("2.5", 100), ("0.5", 20), ("0.001", 1)] as [(String?, Int)])
    func theSettingPicksTheSize(setting: String?, expected: Int) {
        #expect(CalibrationSize.count(quick: 40, full: 100, setting: setting) == expected)
    }

    /// Every suite whose name ends in `CalibrationTests` carries the tag, so `--filter` and the tag pick
    /// the same suites, and reads no sizing variable of its own.
    @Test func everyCalibrationSuiteIsTaggedAndSizedByTheOneVariable() throws {
        var tests = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { tests.deleteLastPathComponent() }
        let files = try FileManager.default.subpathsOfDirectory(atPath: tests.path)
            .filter { $0.hasSuffix("CalibrationTests.swift") }
        #expect(files.count >= 10, "\(files)")
        for file in files {
            let text = try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("struct ") && line.contains("CalibrationTests") && line.contains("@Suite") {
                #expect(line.contains(".tags(.calibration)"), "\(file): \(line)")
            }
            #expect(!text.contains("environment[\"ABCTL_"), "\(file) reads a variable of its own; size it with CalibrationSize")
        }
    }
}
