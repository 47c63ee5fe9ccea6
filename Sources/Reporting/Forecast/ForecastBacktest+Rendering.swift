import ExperimentDefinitions
import Foundation

extension ForecastBacktest {
    /// `[{"experiment", "at_days", "arms": {VARIANT: {"forecast", "realized", "complete", "error"}}}]`,
    /// each arm also with `ci`, `users`, `still_to_come`, `models` (`{"sbg": {"forecast", "error"}, "bdw": {…}}`,
    /// each model's forecast whichever was chosen; `bdw` where it was fitted) and, beside a null figure, `null_reason`.
    public static func json(_ rows: [Row]) -> JSONValue {
        func num(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        return .array(rows.map { row in
            var members: [(String, JSONValue)] = [
                ("experiment", .string(row.experiment)),
                ("at_days", .number(Double(row.atDays))),
                ("at", .string(RFC3339.format(row.at))),
                ("horizon_days", .number(Double(row.horizonDays))),
                ("arms", .object(row.arms.map { arm in
                    var fields: [(String, JSONValue)] = [
                        ("forecast", num(arm.forecast)),
                        ("realized", num(arm.realized)),
                        ("complete", .bool(arm.complete)),
                        ("error", num(arm.error)),
                        ("ci", arm.ci.map { .array([.number($0.lower), .number($0.upper)]) } ?? .null),
                        ("users", .number(Double(arm.users))),
                        ("still_to_come", .number(arm.stillToCome)),
                        ("models", .object(arm.models.keys.sorted { $0 == "sbg" || $1 != "sbg" && $0 < $1 }.map { name in
                            (name, .object([("forecast", .number(arm.models[name]!.forecast)), ("error", num(arm.models[name]!.error))]))
                        })),
                    ]
                    if let reason = arm.nullReason { fields.append(("null_reason", .string(reason))) }
                    return (arm.variant, .object(fields))
                })),
            ]
            if let reason = row.nullReason { members.append(("null_reason", .string(reason))) }
            return .object(members)
        })
    }

    /// One block per (experiment, cut): per arm the forecast and its interval, what was realized, the error.
    public static func text(_ rows: [Row], currency: String) -> String {
        var out = ""
        for row in rows {
            out += "\(row.experiment): forecast at day \(row.atDays) (\(RFC3339.format(row.at))) of revenue per user by day \(row.horizonDays)\n"
            if let reason = row.nullReason {
                out += "  no forecast: \(reason)\n\n"
                continue
            }
            let header = ["arm", "users", "forecast", "90% interval", "realized", "error"]
            var lines = [header]
            for arm in row.arms {
                let realized = arm.realized.map { Wording.money($0, in: currency) + (arm.complete ? "" : " so far, \(Wording.share(arm.stillToCome, digits: 1)) to come") } ?? "—"
                lines.append([arm.variant, Wording.count(arm.users), Wording.money(arm.forecast, in: currency),
                              arm.ci.map { "\(Wording.money($0.lower, in: currency)) to \(Wording.money($0.upper, in: currency))" } ?? "—",
                              realized, arm.error.map { Wording.signedPercent($0) } ?? "—"])
            }
            let widths = header.indices.map { i in lines.map { $0[i].count }.max() ?? 0 }
            for line in lines {
                out += "  " + line.enumerated().map { i, cell in cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            }
            for arm in row.arms where !arm.models.isEmpty {
                let each = arm.models.keys.sorted { $0 == "sbg" || $1 != "sbg" && $0 < $1 }.map { name in
                    let m = arm.models[name]!
                    return "\(name) \(Wording.money(m.forecast, in: currency))" + (m.error.map { " (\(Wording.signedPercent($0)))" } ?? "")
                }
                out += "  \(arm.variant) by model: \(each.joined(separator: ", "))\n"
            }
            for arm in row.arms {
                if let reason = arm.nullReason { out += "  \(arm.variant): \(reason)\n" }
            }
            out += "\n"
        }
        return out
    }
}
