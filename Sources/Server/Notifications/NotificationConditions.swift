import Events
import ExperimentDefinitions
import Foundation
import Safeguards

/// The notifications a state calls for, each with an id stable per occurrence (a hash of its type,
/// its experiment and what makes the occurrence), so every node and every restart records the
/// same ones and the outbox keeps one of each. Pure: the caller reads the store and the clock.
public enum NotificationConditions {
    public static let types = ["safeguard_stop", "safeguard_reset", "decision_ready", "sample_ratio_mismatch", "no_data", "past_end"]
    /// A quiet record: the sample ratio mismatch of an experiment cleared (never sent).
    static let sampleRatioCleared = "sample_ratio_cleared"

    /// The id of an occurrence: the first 32 hex digits of SHA-256 over its parts.
    public static func id(type: String, experiment: String, occurrence: String) -> String {
        String(NotificationSignature.hex(NotificationSignature.sha256(Array("\(type)\u{0}\(experiment)\u{0}\(occurrence)".utf8))).prefix(32))
    }

    static func make(_ type: String, _ experiment: String, occurrence: String, at: Timestamp, text: String, details: JSONValue,
                     now: Timestamp) -> OutboxNotification {
        OutboxNotification(id: id(type: type, experiment: experiment, occurrence: occurrence), type: type, experiment: experiment, at: at,
                           text: text, details: details.serialized(), recordedAt: now)
    }

    /// A stop not yet notified, and the reset of a stop. Stops acknowledged by an older abctl
    /// (which marked them in their own row) are not sent again.
    public static func stops(_ stops: [SafeguardStop], now: Timestamp) -> [OutboxNotification] {
        var out: [OutboxNotification] = []
        for s in stops {
            if s.notifiedAt == nil {
                out.append(make("safeguard_stop", s.experiment, occurrence: s.id, at: s.stoppedAt, text: SafeguardText.stop(s),
                                details: s.json, now: now))
            }
            if let reset = s.resetAt, s.resetNotifiedAt == nil {
                out.append(make("safeguard_reset", s.experiment, occurrence: s.id, at: reset, text: SafeguardText.reset(s), details: s.json, now: now))
            }
        }
        return out
    }

    /// `past_end`: a running experiment past its `end` (one per end date).
    public static func pastEnd(_ e: Experiment, now: Date) -> OutboxNotification? {
        guard e.status == .running, let end = e.end, now >= end else { return nil }
        let endText = Timestamp(end).rfc3339
        return make("past_end", e.id, occurrence: endText, at: Timestamp(end),
                    text: "\(e.id) is still running past its end (\(endText)): ship it, stop it or move its end.",
                    details: .object([("end", .string(endText))]), now: Timestamp(now))
    }

    /// `no_data`: a running experiment, started, whose last exposure (else its start) is more than
    /// `silenceSeconds` ago; one per day the silence began.
    public static func noData(_ e: Experiment, lastExposure: Timestamp?, now: Date, silenceSeconds: Double) -> OutboxNotification? {
        guard e.status == .running else { return nil }
        if let start = e.start, start > now { return nil }
        guard let began = lastExposure ?? e.start.map(Timestamp.init) else { return nil }
        guard Double(Timestamp(now).microseconds - began.microseconds) / 1e6 >= silenceSeconds else { return nil }
        let day = String(began.rfc3339.prefix(10))
        let hours = Int(silenceSeconds / 3600)
        return make("no_data", e.id, occurrence: day, at: began,
                    text: "\(e.id) is running but has had no exposure for \(hours) hours (since \(began.rfc3339)).",
                    details: .object([("last_exposure", lastExposure.map { .string($0.rfc3339) } ?? .null), ("silent_since", .string(began.rfc3339))]),
                    now: Timestamp(now))
    }

    /// `decision_ready`: the verdict is `ship` or `stop`; one per verdict and arm.
    public static func decision(experiment: String, verdict: String, arm: String?, reasons: [String], now: Date) -> OutboxNotification? {
        guard verdict == "ship" || verdict == "stop" else { return nil }
        let words = verdict == "ship" ? "ship \(arm.map { "'\($0)'" } ?? "the winner")" : "stop\(arm.map { " '\($0)'" } ?? "")"
        let reason = reasons.first.map { ": \($0)" } ?? ""
        return make("decision_ready", experiment, occurrence: "\(verdict)\u{0}\(arm ?? "")", at: Timestamp(now),
                    text: "\(experiment) is decided: \(words)\(reason)",
                    details: .object([("verdict", .string(verdict)), ("arm", arm.map(JSONValue.string) ?? .null),
                                      ("reasons", .array(reasons.map(JSONValue.string)))]),
                    now: Timestamp(now))
    }

    /// The sample ratio check's record to make, given the experiment's earlier ones: a mismatch
    /// when it flags and the last record is not a mismatch (none yet, or it cleared since), a quiet
    /// record when it no longer flags after a mismatch; nil when nothing changed. Occurrences are
    /// numbered, so a mismatch after a clear is a new one.
    public static func sampleRatio(experiment: String, flagged: Bool, pValue: Double?, earlier: [OutboxNotification], now: Date) -> OutboxNotification? {
        let kinds = ["sample_ratio_mismatch", sampleRatioCleared]
        var seen: [String: OutboxNotification] = [:]
        for n in earlier where kinds.contains(n.type) { seen[n.id] = n }
        let ordered = seen.values.sorted { ($0.recordedAt, $0.id) < ($1.recordedAt, $1.id) }
        let mismatches = ordered.filter { $0.type == "sample_ratio_mismatch" }.count
        let lastIsMismatch = ordered.last?.type == "sample_ratio_mismatch"
        if flagged && !lastIsMismatch {
            let p = pValue.map { String(format: "%.2g", $0) } ?? "unknown"
            return make("sample_ratio_mismatch", experiment, occurrence: String(mismatches + 1), at: Timestamp(now),
                        text: "\(experiment) has a sample ratio mismatch (chi-square p = \(p)): its arms did not get the users their weights ask for; check assignment before reading results.",
                        details: .object([("p_value", pValue.map(JSONValue.number) ?? .null), ("occurrence", .number(Double(mismatches + 1)))]),
                        now: Timestamp(now))
        }
        if !flagged && lastIsMismatch {
            var quiet = make(sampleRatioCleared, experiment, occurrence: String(mismatches), at: Timestamp(now),
                             text: "\(experiment)'s sample ratio mismatch cleared.", details: .object([]), now: Timestamp(now))
            quiet.state = .quiet
            return quiet
        }
        return nil
    }
}
