import TestSupport
import Testing

/// One variable sizes every calibration suite: unset is the `make test` size, `full` the documented one,
/// a number a multiple of the `make test` size.
@Suite struct CalibrationSizeTests {
    @Test(arguments: [(nil, 40), ("", 40), ("full", 100), ("2.5", 100), ("0.5", 20), ("0.001", 1)] as [(String?, Int)])
    func theSettingPicksTheSize(setting: String?, expected: Int) {
        #expect(CalibrationSize.count(quick: 40, full: 100, setting: setting) == expected)
    }
}
