import ExperimentDefinitions
import Foundation

extension ReportDocument {
    /// Lays out `r` once: the sections, their order, tables and columns every writer shows.
    init(_ r: Report) {
        title = r.experimentName
        experimentID = r.experimentID
        status = r.status
        facts = ["data as of \(Wording.date(r.asOf))",
                 Wording.counted(r.users, "user"), "\(r.confidenceLabel) intervals"]
        primaryMetric = Wording.title(r.primaryMetric)
        hypothesis = r.hypothesis
        footer = "abctl report · rates are Wilson intervals; differences unpooled Wald; lifts delta-method; p-values pooled z-test (Welch for revenue), Holm-adjusted across treatments; chance to win from Beta(1, 1) priors (for revenue, the normal approximation of the difference)."
        sections = [Self.verdict(r), Self.health(r)]
        if !r.safeguards.isEmpty {
            sections.append(Section(title: [.text("Safeguards")],
                                    blocks: [.list(r.safeguards.map { ($0.inForce ? .stop : .reset, Wording.safeguard($0)) })]))
        }
        if let a = r.allocation { sections.append(Self.allocation(r, a)) }
        sections.append(Self.metrics(r))
        if !r.comparisons.isEmpty { sections.append(Self.comparisons(r)) }
        if let t = r.timeline { sections.append(Self.timeline(r, t)) }
        sections += r.segments.indices.map { Self.segment(r, $0) }
        sections.append(Section(title: [.text("Cumulative paid conversion")], blocks: [.chart(.conversion, caption:
            "Share of users who paid within d days of their first exposure (Kaplan–Meier estimate: recent users count for the days they have been followed). Curves stop where fewer than 20 users have been followed that long."),
            .table(Self.byDay(r.conversionByDay.map { c in (c.key, c.points.map { ($0.day, $0.users, $0.rate) }) }) { Wording.percent($0, digits: 1) })]))
        sections.append(Section(title: [.text("Gross revenue per user by day")], blocks: [.chart(.revenue, caption:
            "Cumulative gross revenue per exposed user by day since first exposure (realised LTV): each day's revenue is divided by the users followed at least that long, so recent users count for the days they have had\(Self.capCaption(r)). Curves stop where fewer than 20 users have been followed that long."),
            .table(Self.byDay(r.revenueByDay.map { c in (c.key, c.points.map { ($0.day, $0.users, $0.revenuePerUser) }) }) { Wording.money($0, in: r.currency) })]))
        if let forecasts = r.forecast { sections.append(Self.forecast(r, forecasts)) }
        sections.append(Self.survival(r))
        sections += r.copySources.map(Self.copySources)
    }

    /// The days a curve's table shows.
    static let curveTableDays = [1, 3, 7, 14, VariantTally.curveDays]

    /// A curve's figures as a table beside its chart: a row per variant, a column per day of
    /// `curveTableDays`; "n/a" where the chart stops (fewer than 20 users followed that long).
    static func byDay(_ curves: [(key: String, points: [(day: Int, users: Int, value: Double?)])], _ format: (Double) -> String) -> Table {
        let columns = [Table.Column(header: "variant", align: .left)] + curveTableDays.map { Table.Column(header: "day \($0)", align: .right) }
        let rows = curves.map { curve in
            [Table.Cell(curve.key)] + curveTableDays.map { day in
                guard let p = curve.points.first(where: { $0.day == day }), p.users >= 20, let value = p.value else { return Table.Cell("n/a") }
                return Table.Cell(format(value))
            }
        }
        return Table(columns: columns, rows: rows)
    }

    /// A bandit's periods (the JSON's `allocation`): the weights in force and the users first exposed
    /// in each, and each arm's chance of being best.
    static func allocation(_ r: Report, _ a: AllocationResult) -> Section {
        let columns = [Table.Column(header: "Period", align: .right), Table.Column(header: "From", align: .left), Table.Column(header: "Weights set by", align: .left)]
            + a.variants.map { Table.Column(header: $0, align: .right) }
        let rows: [[Table.Cell]] = Self.periodRuns(a.periods).map { run in
            let p = run.first!
            let label = run.count == 1 ? String(p.index) : "\(p.index)–\(run.last!.index)"
            return [Table.Cell(label), Table.Cell(Wording.date(p.from)), Table.Cell(p.rule)]
                + p.weights.indices.map { i in
                    Table.Cell(text: String(format: "%.3f", p.weights[i]), note: Wording.counted(run.reduce(0) { $0 + $1.users[i] }, "user"))
                }
        }
        var blocks: [Block] = [.paragraph([.text(Wording.weightsNow(a))], .strong), .chart(.allocation, caption: "Each arm's weight per allocation period: new users were drawn with these weights; arms are compared within each period, never across periods pooled."),
                               .table(Table(columns: columns, rows: rows))]
        if let chance = a.chanceBest {
            blocks.append(.paragraph([.text("Chance of being best on \(a.metric.title.lowercased()) (normal approximation of the period-stratified rates): "
                + zip(a.variants, chance).map { "\($0) \(Wording.share($1, digits: 1))" }.joined(separator: ", ") + ".")], .plain))
        } else if let reason = a.chanceBestNullReason {
            blocks.append(.paragraph([.text("Chance of being best: not yet, \(reason).")], .plain))
        }
        return Section(title: [.text("Allocation (bandit)")], blocks: blocks)
    }

    /// The periods as table rows: consecutive periods that drew no user under the same weights and rule
    /// (a story's days after its last arrival, say) share one row "14–119", so the table shows the periods
    /// that mattered rather than a hundred identical ones; each other period is a row of its own.
    static func periodRuns(_ periods: [AllocationResult.Period]) -> [[AllocationResult.Period]] {
        var runs: [[AllocationResult.Period]] = []
        for p in periods {
            if p.users.allSatisfy({ $0 == 0 }), let last = runs.last?.last, last.users.allSatisfy({ $0 == 0 }),
               last.weights == p.weights, last.rule == p.rule, last.index + 1 == p.index {
                runs[runs.count - 1].append(p)
            } else {
                runs.append([p])
            }
        }
        return runs
    }

    static func verdict(_ r: Report) -> Section {
        let title: [Inline] = [.text("Verdict: ")] + verdictWords(r)
        var blocks: [Block] = [.list(r.decision.reasons.map { (nil, $0) })]
        if let eta = Wording.eta(r) { blocks.append(.paragraph([.text(eta)], .plain)) }
        return Section(verdict: r.decision.verdict, title: title, blocks: blocks)
    }

    /// The verdict as its section's title says it after its label: "keep running", "ship `ai`".
    static func verdictWords(_ r: Report) -> [Inline] {
        let words: [Inline] = [.text(r.decision.verdict.rawValue.replacingOccurrences(of: "_", with: " "))]
        return words + (r.decision.winner.map { [.text(" "), .code($0)] } ?? [])
    }

    static func health(_ r: Report) -> Section {
        Section(title: [.text("Health")], blocks: [.list(r.health.map { h in
            let badge: Badge = switch h.level {
            case .alert: .alert
            case .warning: .warning
            case .info: .info
            case .ok: .ok
            }
            return (badge, h.message)
        })])
    }

    static func metrics(_ r: Report) -> Section {
        let columns = [Table.Column(header: "metric", align: .left)]
            + r.variants.map { Table.Column(header: $0.key + ($0.isControl ? " (control)" : ""), align: .right) }
        var rows: [[Table.Cell]] = [[Table.Cell("users")] + r.variants.map { Table.Cell(Wording.count($0.users)) }]
        for metric in r.metrics {
            rows.append([Table.Cell(text: Wording.title(metric), tag: metric == r.primaryMetric ? "primary" : nil)] + r.variants.map { v in
                guard let m = v.metric(metric), m.rate != nil else { return Table.Cell("n/a") }
                return Table.Cell(text: Wording.value(metric, m.rate, in: r.currency), detail: Wording.interval(metric, m.ci, in: r.currency),
                                  note: "\(Wording.count(m.count)) of \(Wording.count(m.denominator))\(metric.isRevenue ? " paid" : "")")
            })
        }
        var blocks: [Block] = [.paragraph([.text("Rate with its \(r.confidenceLabel) interval.")], .muted), .table(Table(columns: columns, rows: rows))]
        if let note = Wording.capNote(r) { blocks.append(.paragraph([.text(note)], .muted)) }
        // Users a rate leaves out of its denominator, said where the rate is shown.
        for metric in r.metrics {
            for v in r.variants {
                guard let m = v.metric(metric), let reason = m.nullReasons["denominator"] else { continue }
                blocks.append(.paragraph([.text("\(Wording.title(metric)), “\(v.key)”: \(reason).")], .muted))
            }
        }
        return Section(title: [.text("Metrics by variant")], blocks: blocks)
    }

    static func comparisons(_ r: Report) -> Section {
        let columns: [Table.Column] = [
            .init(header: "variant", align: .left), .init(header: "metric", align: .left),
            .init(header: "difference", align: .right, detailHeader: "interval"), .init(header: "lift", align: .right, detailHeader: "lift interval"),
            .init(header: "p", align: .right), .init(header: "p (Holm)", align: .right),
            .init(header: "chance better", align: .right), .init(header: "expected loss", align: .right),
        ]
        let rows = r.comparisons.map { c -> [Table.Cell] in
            let tone = tone(c.reading)
            return [
                Table.Cell(c.variant),
                Table.Cell(text: Wording.directedTitle(c.metric), tag: c.metric == r.primaryMetric ? "primary" : nil),
                Table.Cell(text: Wording.difference(c.metric, c.absoluteDiff, in: r.currency),
                           detail: Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency), tone: tone, marked: true),
                Table.Cell(text: Wording.signedPercent(c.relativeLift), detail: Wording.liftInterval(c.relativeCI), tone: tone),
                Table.Cell(Wording.pValue(c.pValue)), Table.Cell(Wording.pValue(c.pValueAdjusted)),
                Table.Cell(Wording.probability(c.chanceToBeBetter)),
                Table.Cell(Wording.loss(c.metric, c.expectedLossIfShipped, in: r.currency)),
            ]
        }
        var blocks: [Block] = [
            .chart(.forest, caption: "Relative lift with its \(r.confidenceLabel) interval. For cancel rates, left of zero is good."),
            .table(Table(columns: columns, rows: rows)),
            .paragraph([.mark(.good), .text(" " + Wording.legendBetter + ", "), .mark(.bad), .text(" " + Wording.legendWorse)], .muted),
        ]
        blocks += Wording.legend(r).dropFirst().map { .paragraph([.text($0)], .muted) }
        if let note = Wording.adjustmentNote(r) {
            let adjusted = r.comparisons.compactMap { c in c.adjustment.map { (c, $0) } }
            blocks.append(.paragraph([.text(note)], .muted))
            blocks.append(.table(Table(columns: [
                .init(header: "variant", align: .left), .init(header: "metric", align: .left),
                .init(header: "adjusted", align: .right, detailHeader: "interval"), .init(header: "unadjusted", align: .right, detailHeader: "interval"),
                .init(header: "variance reduction", align: .right), .init(header: "strata", align: .right),
            ], rows: adjusted.map { c, a in [
                Table.Cell(c.variant), Table.Cell(Wording.title(c.metric)),
                Table.Cell(text: Wording.difference(c.metric, c.absoluteDiff, in: r.currency), detail: Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency)),
                Table.Cell(text: Wording.difference(c.metric, a.unadjusted.absoluteDiff, in: r.currency),
                           detail: Wording.differenceInterval(c.metric, a.unadjusted.absoluteCI, in: r.currency)),
                Table.Cell(Wording.varianceReduction(a)), Table.Cell(String(a.strata)),
            ] })))
        }
        if r.sequential {
            blocks.append(.paragraph([.text("Always-valid (sequential) results, safe to check every day:")], .muted))
            blocks.append(.table(Table(columns: [
                .init(header: "variant", align: .left), .init(header: "metric", align: .left),
                .init(header: "p (always valid)", align: .right), .init(header: "interval (always valid)", align: .right),
            ], rows: r.comparisons.filter { $0.sequentialPValue != nil }.map { c in [
                Table.Cell(c.variant), Table.Cell(Wording.title(c.metric)), Table.Cell(Wording.pValue(c.sequentialPValue)),
                Table.Cell(Wording.differenceInterval(c.metric, c.sequentialCI, in: r.currency)),
            ] })))
        }
        return Section(title: [.text("Against the control ("), .code(r.control.key), .text(")")], blocks: blocks)
    }

    /// The effect over time: one row a day (newest last), the users counted by then and each
    /// treatment's difference with its interval, beside the chart that draws them.
    static func timeline(_ r: Report, _ t: Timeline) -> Section {
        var blocks: [Block] = [.paragraph([.text(Wording.timelineNote(t, r))], .plain)]
        guard !t.points.isEmpty else {
            blocks.append(.paragraph([.text("No days to show: \(t.nullReason ?? "no users yet").")], .muted))
            return Section(title: [.text("The effect over time")], blocks: blocks)
        }
        let treatments = Array(t.variants.dropFirst())
        blocks.append(.chart(.timeline, caption: "\(Wording.title(t.metric)): each treatment's difference to the control by day (line) with its \(r.confidenceLabel) interval (band); the dashed line is no difference."))
        let columns = [Table.Column(header: "day", align: .left), Table.Column(header: "users", align: .right)]
            + treatments.map { Table.Column(header: $0, align: .right, detailHeader: "interval") }
        let rows = t.points.map { p -> [Table.Cell] in
            [Table.Cell(RFC3339.formatDay(p.date)), Table.Cell(Wording.count(p.users.reduce(0, +)))]
                + treatments.map { key in
                    guard let c = p.comparisons.first(where: { $0.variant == key }), c.absoluteDiff != nil else { return Table.Cell("n/a") }
                    return Table.Cell(text: Wording.difference(t.metric, c.absoluteDiff, in: r.currency),
                                      detail: Wording.differenceInterval(t.metric, c.absoluteCI, in: r.currency))
                }
        }
        blocks.append(.table(Table(columns: columns, rows: rows)))
        return Section(title: [.text("The effect over time")], blocks: blocks)
    }

    static func segment(_ r: Report, _ index: Int) -> Section {
        let d = r.segments[index]
        var blocks: [Block] = [.paragraph([.text(SegmentDimension.exploratoryNote)], .muted)]
        blocks += d.differenceSentences.map { .paragraph([.text($0)], .strong) }
        blocks.append(.chart(.segment(index), caption: "\(Wording.title(r.primaryMetric)): each value's difference to the control with its \(r.confidenceLabel) interval; the dashed line is all users'."))
        let rows = d.cells.flatMap { cell in
            cell.comparisons.map { c -> [Table.Cell] in
                let tone = tone(c.reading)
                return [
                    Table.Cell(Wording.segmentValue(cell)), Table.Cell(Wording.count(cell.users)),
                    Table.Cell(text: Wording.title(c.metric), tag: c.metric == r.primaryMetric ? "primary" : nil),
                    // By country: the claims the arms showed in the country's storefront, where claims differ.
                    Table.Cell(text: c.variant, detail: StorefrontClaims.country(d, cell).flatMap {
                        StorefrontClaims.beside(r.storefrontClaims, country: $0, variant: c.variant, control: r.control.key)
                    }.map { "(\($0))" }),
                    Table.Cell(text: Wording.difference(c.metric, c.absoluteDiff, in: r.currency),
                               detail: Wording.differenceInterval(c.metric, c.absoluteCI, in: r.currency), tone: tone, marked: true),
                    Table.Cell(text: Wording.signedPercent(c.relativeLift), tone: tone), Table.Cell(Wording.pValue(c.pValueAdjusted)),
                ]
            }
        }
        blocks.append(.table(Table(columns: [
            .init(header: "value", align: .left), .init(header: "users", align: .right), .init(header: "metric", align: .left),
            .init(header: "variant", align: .left), .init(header: "difference", align: .right, detailHeader: "interval"),
            .init(header: "lift", align: .right), .init(header: "p (Holm)", align: .right),
        ], rows: rows)))
        blocks.append(.list(Wording.heterogeneityLines(d).map { (nil, $0) }))
        blocks.append(.paragraph([.text(Wording.poolingNote(d))], .muted))
        return Section(title: [.text("By \(d.dimension)")], blocks: blocks)
    }

    static func forecast(_ r: Report, _ forecasts: [ArmForecast]) -> Section {
        let heading = Wording.forecastHeading(forecasts)
        return Section(title: [.text("Forecast")], blocks: [
            .paragraph([.text(heading.prefix(1).uppercased() + heading.dropFirst() + ".")], .plain),
            .chart(.forecast, caption: "Realised gross revenue per exposed user by day (solid), extended to day \(forecasts[0].horizonDays) by the forecast (dashed) with its 90% interval (shaded)."),
            .list(forecasts.map { (nil, Wording.forecastLine($0, in: r.currency, proceedsBeforeTax: r.proceedsBeforeTax)) }),
            .paragraph([.text(Wording.forecastNote)], .muted),
        ])
    }

    static func survival(_ r: Report) -> Section {
        let s = r.survival
        let columns = [Table.Column(header: "variant", align: .left), .init(header: "trial starters", align: .right), .init(header: "cancels", align: .right)]
            + s.days.map { Table.Column(header: Wording.survivalDay($0), align: .right) }
        let rows = s.curves.map { curve in
            [Table.Cell(curve.key), Table.Cell(Wording.count(curve.trialStarters)), Table.Cell(Wording.count(curve.cancels))]
                + (curve.atDays?.map { Table.Cell(Wording.percent($0, digits: 1)) } ?? s.days.map { _ in Table.Cell("n/a") })
        }
        var logRank = "Log-rank test \(Wording.pEquals(s.logRankP))"
        if let reason = s.nullReason { logRank += " (\(reason))" }
        var blocks: [Block] = [
            .paragraph([.text(Wording.survivalNote(r))], .plain),
            .chart(.survival, caption: "Share of trial starters still subscribed by day since their trial start, per variant."),
            .table(Table(columns: columns, rows: rows)),
            .paragraph([.text(logRank + ".")], .plain),
        ]
        // Where the stores told of ends other than a person's cancel, say how each arm's subscriptions ended.
        if s.curves.contains(where: { $0.ends.contains { $0.key != .voluntary && $0.value > 0 } }) {
            blocks.append(.paragraph([.text(Wording.endsByKind(s.curves))], .plain))
        }
        return Section(title: [.text("Subscriptions still active")], blocks: blocks)
    }

    static func copySources(_ split: CopySourceSplit) -> Section {
        let total = split.sources.reduce(0) { $0 + $1.users }
        let rows = split.sources.map { s in
            [Table.Cell(s.source), Table.Cell(Wording.count(s.users)),
             Table.Cell(Wording.percent(total > 0 ? Double(s.users) / Double(total) : nil, digits: 1)),
             Table.Cell(Wording.count(s.paid)), Table.Cell(Wording.percent(s.paidRate))]
        }
        var blocks: [Block] = [.table(Table(columns: [
            .init(header: "source", align: .left), .init(header: "users", align: .right), .init(header: "share", align: .right),
            .init(header: "paid", align: .right), .init(header: "paid conversion", align: .right),
        ], rows: rows))]
        if !split.fallbackReasons.isEmpty {
            blocks.append(.paragraph([.text("Why lines fell back: " + split.fallbackReasons.prefix(5).map { "\($0.reason) (\(Wording.count($0.count)))" }.joined(separator: ", ") + ".")], .plain))
        }
        return Section(title: [.text("Copy sources of "), .code(split.variant)], blocks: blocks)
    }

    static func tone(_ reading: VerdictReading) -> Tone? {
        reading.clearlyBetter ? .good : reading.clearlyWorse ? .bad : nil
    }

    /// "; each user's revenue capped at …", when the report caps revenue.
    static func capCaption(_ r: Report) -> String {
        guard let cap = r.variants.first?.metric(.revenuePerUser)?.cap else { return "" }
        return "; each user's revenue capped at \(Wording.money(cap, in: r.currency))"
    }
}
