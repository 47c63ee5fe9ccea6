import Events
import ExperimentDefinitions
import Foundation

/// The report as JSON: its fixed fields (`experiment`, `generated_at`, `users`, `srm`,
/// `variants`, `comparisons`, `survival`, `copy_sources`, `decision`, …; docs/Reports.md, "Report
/// fields"), their names and nesting exact, plus added fields.
///
/// Added beside the fixed fields: `name`, `as_of`, `alpha`, `primary_metric`, `guardrails`,
/// `health`, `required_users_per_variant`, per metric `denominator` (and `sum` for revenue),
/// per comparison `test`, `lower_is_better`, `chance_to_be_better`, the sequential fields and
/// `null_reasons`, survival `intervals`/`trial_starters`/`cancels`, `conversion_by_day`,
/// `fallback_reasons`, `copy_source_paid` and `offer_mismatch` (per variant: `arm_trial_days`,
/// `trial_starts`, `trial_days_differ`, `granted_trial_days`, `paid_without_trial`, `users` (trial starters
/// and purchasers), `count`, `share`, `p_value` (exact binomial against 2%), `control_p_value` (Fisher's
/// exact test against the control), `flagged`). A number that cannot be computed is `null`, with its reason
/// beside it (`null_reason` or `null_reasons`).
public enum JSONReportRenderer {
    public static func render(_ r: Report) -> String { value(r).serialized() }

    public static func value(_ r: Report) -> JSONValue {
        var top: [(String, JSONValue)] = [
            ("experiment", .string(r.experimentID)),
            ("generated_at", .string(RFC3339.format(r.generatedAt))),
            ("currency", .string(r.currency)),
            ("users", .number(Double(r.users))),
            ("crossover_users", .number(Double(r.crossoverUsers))),
            // Some proceeds are the revenue less the store's cut, tax not known.
            ("proceeds_before_tax", .bool(r.proceedsBeforeTax)),
            ("srm", srm(r.srm)),
            ("variants", .array(r.variants.map(variant))),
            ("comparisons", .array(r.comparisons.map(comparison))),
            ("survival", survival(r.survival)),
            ("copy_sources", .object(r.copySources.map { split in
                (split.variant, .object(split.sources.map { ($0.source, .number(Double($0.users))) }))
            })),
            ("decision", .object([
                ("verdict", .string(r.decision.verdict.rawValue)),
                ("reasons", .array(r.decision.reasons.map(JSONValue.string))),
                ("winner", r.decision.winner.map(JSONValue.string) ?? .null),
                ("eta", r.decision.eta.map { .string(RFC3339.format($0)) } ?? .null),
                ("eta_reason", r.decision.etaReason.map(JSONValue.string) ?? .null),
            ])),
        ]
        top += [
            ("name", .string(r.experimentName)),
            ("status", .string(r.status)),
            ("as_of", .string(RFC3339.format(r.asOf))),
            ("since", r.since.map { .string(RFC3339.format($0)) } ?? .null),
            ("until", r.until.map { .string(RFC3339.format($0)) } ?? .null),
            ("alpha", .number(r.alpha)),
            ("primary_metric", .string(r.primaryMetric.name)),
            ("guardrails", .array(r.guardrails.map { .string($0.name) })),
            ("secondary", .array(r.secondary.map { .string($0.name) })),
            ("revenue_cap", revenueCap(r.revenueCap)),
            ("minimum_effect", .number(r.minimumEffect)),
            ("sequential", .bool(r.sequential)),
            ("required_users_per_variant", int(r.requiredUsersPerVariant)),
            ("legend", .array(Wording.legend(r).map(JSONValue.string))),
            ("safeguards", .array(r.safeguards.map(\.json))),
            ("health", .array(r.health.map { h in
                .object([("level", .string(h.level.rawValue)), ("code", .string(h.code)), ("message", .string(h.message))]
                    + (h.count.map { [("count", .number(Double($0)))] } ?? []))
            })),
            ("conversion_by_day", .object(r.conversionByDay.map { curve in
                (curve.key, .array(curve.points.map { .object([("day", .number(Double($0.day))), ("users", .number(Double($0.users))), ("rate", num($0.rate))]) }))
            })),
            ("revenue_by_day", .object(r.revenueByDay.map { curve in
                (curve.key, .array(curve.points.map { .object([("day", .number(Double($0.day))), ("users", .number(Double($0.users))), ("revenue_per_user", num($0.revenuePerUser))]) }))
            })),
            ("copy_source_paid", .object(r.copySources.map { split in
                (split.variant, .object(split.sources.map { ($0.source, .number(Double($0.paid))) }))
            })),
            ("fallback_reasons", .object(r.copySources.map { split in
                (split.variant, .object(split.fallbackReasons.map { ($0.reason, .number(Double($0.count))) }))
            })),
            ("offer_mismatch", .object(r.offerMismatch.map { m in (m.variant, offerMismatch(m, claims: r.storefrontClaims.first { $0.variant == m.variant })) })),
        ]
        if !r.segments.isEmpty { top.append(("segments", .object(r.segments.map { ($0.dimension, segment($0, claims: r.storefrontClaims)) }))) }
        if let forecasts = r.forecast { top.append(("forecast", forecast(forecasts))) }
        if let a = r.allocation { top.append(("allocation", allocation(a))) }
        if let t = r.timeline { top.append(("timeline", timeline(t))) }
        return .object(top)
    }

    /// The effect over time: per day, the users counted by then per variant, and each treatment's
    /// difference to the control with its interval (null with `null_reason` while it cannot be computed).
    static func timeline(_ t: Timeline) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("metric", .string(t.metric.name)),
            ("points", .array(t.points.map { p in
                .object([
                    ("date", .string(RFC3339.formatDay(p.date))),
                    ("users", .object(zip(t.variants, p.users).map { ($0, .number(Double($1))) })),
                    ("comparisons", .object(p.comparisons.map { c in
                        var fields: [(String, JSONValue)] = [("absolute_diff", num(c.absoluteDiff)), ("absolute_ci", bounds(c.absoluteCI))]
                        if c.absoluteDiff == nil || c.absoluteCI == nil, let reason = c.nullReasons["absolute_diff"] ?? c.nullReasons["absolute_ci"] {
                            fields.append(("null_reason", .string(reason)))
                        }
                        return (c.variant, .object(fields))
                    })),
                ])
            })),
        ]
        if let reason = t.nullReason { members.append(("null_reason", .string(reason))) }
        return .object(members)
    }

    /// `allocation`: the periods with their weights and users, and `chance_best` (null with its reason).
    static func allocation(_ a: AllocationResult) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("periods", .array(a.periods.map { p in
                .object([("period", .number(Double(p.index))), ("from", .string(RFC3339.format(p.from))),
                         ("to", p.to.map { .string(RFC3339.format($0)) } ?? .null),
                         ("weights", .object(zip(a.variants, p.weights).map { ($0, .number($1)) })),
                         ("users", .object(zip(a.variants, p.users).map { ($0, .number(Double($1))) })),
                         ("rule", .string(p.rule))])
            })),
            ("chance_best", a.chanceBest.map { .object(zip(a.variants, $0).map { ($0, .number($1)) }) } ?? .null),
            ("metric", .string(a.metric.name)),
        ]
        if let reason = a.chanceBestNullReason { members.append(("null_reasons", .object([("chance_best", .string(reason))]))) }
        return .object(members)
    }

    /// One `--by` dimension: its cells with their comparisons, and `heterogeneity_p` per metric and variant,
    /// with the reasons for null p-values, the pooling threshold and the exploratory note beside them.
    /// A country's cell adds `discount_text` (the assign answer's name for a claim): each arm whose claim
    /// differs between storefronts → its claim in that country's storefront.
    static func segment(_ d: SegmentDimension, claims: [StorefrontClaims] = []) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("cells", .array(d.cells.map { cell in
                var members: [(String, JSONValue)] = [
                    ("value", .string(cell.value)),
                    ("users", .number(Double(cell.users))),
                    ("comparisons", .array(cell.comparisons.map(comparison))),
                    ("users_by_variant", .array(cell.usersByVariant.map { .number(Double($0)) })),
                ]
                if cell.value == Segments.otherValue { members.append(("pooled_values", .array(cell.pooledValues.map(JSONValue.string)))) }
                if let country = StorefrontClaims.country(d, cell), let text = StorefrontClaims.json(claims, country: country) {
                    members.append(("discount_text", text))
                }
                return .object(members)
            })),
            ("heterogeneity_p", .object(d.metrics.map { m in
                (m.name, .object(d.heterogeneity.filter { $0.metric == m }.map { ($0.variant, num($0.pValue)) }))
            })),
        ]
        let missing = d.heterogeneity.filter { $0.nullReason != nil }
        if !missing.isEmpty {
            fields.append(("null_reasons", .object([("heterogeneity_p", .object(d.metrics.compactMap { m in
                let rows = missing.filter { $0.metric == m }
                return rows.isEmpty ? nil : (m.name, .object(rows.map { ($0.variant, .string($0.nullReason!)) }))
            }))])))
        }
        fields.append(("differs", .array(d.differenceSentences.map(JSONValue.string))))
        fields.append(("min_segment_users", .number(Double(d.minUsers))))
        fields.append(("note", .string(SegmentDimension.exploratoryNote)))
        return .object(fields)
    }

    /// `forecast`: per variant `{"horizon_days", "revenue_per_user", "ci", "proceeds_per_user", "proceeds_ci", "users", "model":
    /// {PERIOD: {"name", "alpha", "beta", "c"?, "payers"}}}` (`name` sbg or bdw, `c` the bdw's; each model also says whether it was `capped`), with `null_reason` beside null figures.
    static func forecast(_ forecasts: [ArmForecast]) -> JSONValue {
        .object(forecasts.map { f in
            var fields: [(String, JSONValue)] = [
                ("horizon_days", .number(Double(f.horizonDays))),
                ("revenue_per_user", num(f.revenuePerUser)),
                ("ci", f.ci.map { .array([.number($0.lower), .number($0.upper)]) } ?? .null),
                ("proceeds_per_user", num(f.proceedsPerUser)),
                ("proceeds_ci", f.proceedsCI.map { .array([.number($0.lower), .number($0.upper)]) } ?? .null),
                ("users", .number(Double(f.users))),
                ("model", .object(f.model.keys.sorted().map { period in
                    let m = f.model[period]!
                    return (period, .object([("name", .string(m.name)), ("alpha", .number(m.alpha)), ("beta", .number(m.beta))]
                                            + (m.c.map { [("c", JSONValue.number($0))] } ?? [])
                                            + [("payers", .number(Double(m.payers))), ("capped", .bool(m.capped))]))
                })),
            ]
            if let reason = f.nullReason { fields.append(("null_reason", .string(reason))) }
            if !f.nullReasons.isEmpty { fields.append(("null_reasons", .object(f.nullReasons.keys.sorted().map { ($0, .string(f.nullReasons[$0]!)) }))) }
            return (f.variant, .object(fields))
        })
    }

    static func num(_ x: Double?) -> JSONValue {
        guard let x, x.isFinite else { return .null }
        return .number(x)
    }

    /// An amount of money (a total, a cap) to the cent, as it was paid: a sum of many payments carries
    /// float noise (129807.96000000702) that is no figure. Per-user means and intervals keep full precision.
    static func money(_ x: Double?) -> JSONValue {
        guard let x, x.isFinite else { return .null }
        return .number(Wording.cents(x))
    }

    /// `{"percentile": p}`, `{"absolute": x}` or null, as the experiment file says.
    static func revenueCap(_ cap: RevenueCap?) -> JSONValue {
        switch cap {
        case nil: .null
        case .percentile(let p): .object([("percentile", .number(p))])
        case .absolute(let x): .object([("absolute", .number(x))])
        }
    }

    static func int(_ x: Int?) -> JSONValue { x.map { .number(Double($0)) } ?? .null }

    static func bounds(_ b: Bounds?) -> JSONValue {
        guard let b, b.lower.isFinite, b.upper.isFinite else { return .null }
        return .array([.number(b.lower), .number(b.upper)])
    }

    /// `claims`: the arm's discount claim per storefront, where it differs between them.
    static func offerMismatch(_ m: OfferMismatch, claims: StorefrontClaims? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("arm_trial_days", .number(Double(m.armTrialDays))), ("trial_starts", .number(Double(m.trialStarts))),
            ("trial_days_differ", .number(Double(m.trialDaysDiffer))),
            ("granted_trial_days", .object(m.grantedDays.map { (String($0.days), .number(Double($0.users))) })),
            ("paid_without_trial", .number(Double(m.paidWithoutTrial))), ("users", .number(Double(m.users))), ("count", .number(Double(m.count))),
            ("share", num(m.share)), ("p_value", num(m.pValue)), ("control_p_value", num(m.controlPValue)), ("flagged", .bool(m.flagged)),
        ]
        if let claims { members.append(("discount_claims", claims.json)) }
        if !m.nullReasons.isEmpty {
            members.append(("null_reasons", .object(m.nullReasons.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return .object(members)
    }

    static func srm(_ s: SRMResult) -> JSONValue {
        var members: [(String, JSONValue)] = [("p_value", num(s.pValue)), ("flagged", .bool(s.flagged)),
                                              ("statistic", num(s.statistic)),
                                              ("expected_shares", .array(s.expectedShares.map(JSONValue.number)))]
        if let before = s.countedBefore { members.append(("counted_before", .string(RFC3339.format(before)))) }
        if let reason = s.nullReason { members.append(("null_reason", .string(reason))) }
        return .object(members)
    }

    static func variant(_ v: VariantResult) -> JSONValue {
        .object([
            ("key", .string(v.key)),
            ("users", .number(Double(v.users))),
            ("metrics", .object(v.metrics.map { m in
                var fields: [(String, JSONValue)] = [("count", .number(Double(m.count))), ("rate", num(m.rate)), ("ci", bounds(m.ci)),
                                                     ("denominator", .number(Double(m.denominator)))]
                if let sum = m.sum { fields.append(("sum", money(sum))) }
                if m.metric.isRevenue { fields.append(("cap", money(m.cap))) }
                if let reason = m.nullReason { fields.append(("null_reason", .string(reason))) }
                if !m.nullReasons.isEmpty {
                    fields.append(("null_reasons", .object(m.nullReasons.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
                }
                return (m.metric.name, .object(fields))
            })),
            ("control", .bool(v.isControl)),
        ])
    }

    static func comparison(_ c: ComparisonResult) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("variant", .string(c.variant)),
            ("metric", .string(c.metric.name)),
            ("direction", .string(c.metric.direction)),
            ("absolute_diff", num(c.absoluteDiff)),
            ("absolute_ci", bounds(c.absoluteCI)),
            ("relative_lift", num(c.relativeLift)),
            ("relative_ci", bounds(c.relativeCI)),
            ("p_value", num(c.pValue)),
            ("p_value_adjusted", num(c.pValueAdjusted)),
            ("chance_to_win", num(c.chanceToWin)),
            ("expected_loss", num(c.expectedLoss)),
            ("test", .string(c.test)),
            ("lower_is_better", .bool(c.metric.lowerIsBetter)),
            ("chance_to_be_better", num(c.chanceToBeBetter)),
            ("expected_loss_if_shipped", num(c.expectedLossIfShipped)),
        ]
        if c.metric.isRevenue { fields.append(("cap", money(c.cap))) }
        if let a = c.adjustment {
            fields.append(("variance_reduction", num(a.varianceReduction)))
            fields.append(("adjusted_for", .array(a.attributes.map(JSONValue.string))))
            fields.append(("strata", .number(Double(a.strata))))
            fields.append(("unadjusted", comparison(a.unadjusted)))
        }
        var nullReasons = c.nullReasons
        if let reason = c.adjustment?.varianceReductionNullReason { nullReasons["variance_reduction"] = reason }
        if c.sequentialPValue != nil || c.sequentialCI != nil {
            fields.append(("sequential_p_value", num(c.sequentialPValue)))
            fields.append(("sequential_ci", bounds(c.sequentialCI)))
        }
        if !nullReasons.isEmpty {
            fields.append(("null_reasons", .object(nullReasons.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return .object(fields)
    }

    static func survival(_ s: SurvivalResult) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("days", .array(s.days.map { .number(Double($0)) })),
            ("variants", .object(s.curves.map { ($0.key, $0.atDays.map { .array($0.map(JSONValue.number)) } ?? .null) })),
            ("log_rank_p", num(s.logRankP)),
            ("intervals", .object(s.curves.map { ($0.key, $0.intervals.map { .array($0.map { bounds($0) }) } ?? .null) })),
            ("trial_starters", .object(s.curves.map { ($0.key, .number(Double($0.trialStarters))) })),
            ("cancels", .object(s.curves.map { ($0.key, .number(Double($0.cancels))) })),
            ("ends", .object(s.curves.map { curve in
                (curve.key, .object(SubscriptionEndKind.allCases.map { ($0.rawValue, .number(Double(curve.ends[$0] ?? 0))) }))
            })),
        ]
        if let reason = s.nullReason { fields.append(("null_reason", .string(reason))) }
        return .object(fields)
    }
}
