import Events
import Foundation

/// Stops and findings in words: the notification's `text`, the log, `abctl safeguards check`.
public enum SafeguardText {
    /// "Safeguard stopped arm 'ai' of chorus-trial-length: day0_cancel_rate 30.0% against the control's 20.0% …"
    public static func stop(_ s: SafeguardStop) -> String {
        let f = s.figures
        let what = s.action == .stopExperiment ? "the experiment \(s.experiment) (every arm)" : "arm '\(s.arm)' of \(s.experiment)"
        return "Safeguard stopped \(what): \(s.metric) \(percent(f.comparedArmRate)) in '\(s.arm)' (\(f.armCount)/\(f.armUsers)) against "
            + "\(percent(f.comparedControlRate)) in the control (\(f.controlCount)/\(f.controlUsers))\(stratified(f)); at level \(String(format: "%.4g", f.level)) \(f.boundWords), wholly harmful. "
            + "Its users now get the control's paywall; lift with 'abctl safeguards reset \(s.experiment) \(s.arm)'."
    }

    /// "Safeguard stop lifted: arm 'ai' of chorus-trial-length (stopped on day0_cancel_rate at …) takes users again, reset by ana at …"
    public static func reset(_ s: SafeguardStop) -> String {
        let what = s.action == .stopExperiment ? "the experiment \(s.experiment) (every arm)" : "arm '\(s.arm)' of \(s.experiment)"
        return "Safeguard stop lifted: \(what), stopped on \(s.metric) at \(s.stoppedAt.rfc3339), shows its own paywall again"
            + (s.resetAt.map { ", reset\(s.resetBy.map { " by \($0)" } ?? "") at \($0.rfc3339)." } ?? ".")
    }

    /// One line per finding.
    public static func finding(_ f: SafeguardEvaluator.Finding) -> String {
        if let skipped = f.skipped { return "\(f.experiment) \(f.arm) \(f.metric): not tested (\(skipped))" }
        guard let x = f.figures else { return "\(f.experiment) \(f.arm) \(f.metric): not tested" }
        return "\(f.experiment) \(f.arm) \(f.metric): \(percent(x.comparedArmRate)) vs \(percent(x.comparedControlRate))\(stratified(x)), \(x.boundWords)\(f.harmful ? ", HARMFUL" : ", no harm shown")"
    }

    /// A bandit's rates are period-stratified; the counts beside them are pooled.
    static func stratified(_ f: SafeguardFigures) -> String {
        f.stratified.map { ", period-stratified over \($0.periods) period\($0.periods == 1 ? "" : "s")" } ?? ""
    }

    static func percent(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }
    static func signed(_ x: Double) -> String { String(format: "%+.1f", x * 100) }
}
