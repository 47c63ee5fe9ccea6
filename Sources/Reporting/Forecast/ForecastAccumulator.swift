import Events
import ExperimentDefinitions
import Foundation
import Statistics

/// Reads each user's facts into the cells of a revenue forecast (docs/Forecast.md), per arm.
///
/// Only mature users count (exposed at least the longest trial plus the maturity grace before the
/// as-of time), so an arm with a longer trial is not penalised. Everything later than the as-of time is
/// cut from the facts, so a forecast can be made as the data stood on any earlier day (the backtest).
public struct ForecastAccumulator: Sendable {
    public let experiment: Experiment
    public let horizonDays: Int
    let asOf: Int64
    let horizon: Int64
    let matureAge: Int64
    let keys: [String]
    /// Per arm, the plans its payers can be on (price → period), for a first payment with no `product_id`.
    let plans: [[PlanPeriod]]
    /// Per arm, its plans' prices in `plans`' order: what a payer's plan is found by.
    let planPrices: [[Double]]
    /// `product_id` → plan, over every offering: a payment belongs to a plan by its product id.
    let planByProduct: [String: PlanPeriod]

    /// A plan with its period in days, read once: every payer's cell needs the days, and reading them
    /// from the period's text per payer cost a report more than the rest of the cell.
    struct PlanPeriod: Sendable {
        let plan: Products.Plan
        let days: Int?
        init(_ plan: Products.Plan) {
            self.plan = plan
            days = ForecastAccumulator.periodDays(plan.period)
        }
    }
    /// Per arm, mature users who paid (or were refunded) something, by cell.
    private var payerCells: [[RevenueForecast.Cell: Int]]
    /// Per arm, mature users with no revenue at all: most users, counted without hashing a cell.
    private var quietUsers: [Int]
    /// Per arm: users exposed by the as-of time, and those of them mature.
    public private(set) var exposed: [Int]
    public private(set) var payers: [Int]
    /// Per arm, payers whose plan cannot be told (a `product_id` no plan has; without one, no plan of the
    /// arm's offering at the price): their revenue to date counts, no renewal is forecast (`null_reasons`).
    public private(set) var unmatchedPayers: [Int]
    /// For a backtest: the later moment at which the mature users' realized revenue is read.
    let realizedAsOf: Int64?
    /// Per arm: the mature users' revenue within the horizon as of `realizedAsOf`, and how much of their
    /// horizon (in user-horizons) was still to come then.
    public private(set) var realized: [Double]
    public private(set) var stillToCome: [Double]

    static let microsPerDay: Int64 = 86_400_000_000
    /// The store's billing grace: a renewal is overdue (the payer has churned) one period plus this after the last payment.
    public static let overdueGraceDays: Int64 = 16

    /// Days of one plan period (ISO 8601: PnD, PnW, PnM as 30 days, PnY as 365), nil if unreadable.
    public static func periodDays(_ period: String) -> Int? {
        guard period.hasPrefix("P"), let unit = period.last, let n = Int(period.dropFirst().dropLast()), n > 0 else { return nil }
        switch unit {
        case "D": return n
        case "W": return 7 * n
        case "M": return 30 * n
        case "Y": return 365 * n
        default: return nil
        }
    }

    /// `realizedAsOf`: also sum, per arm, what the mature users had earned within the horizon by then.
    public init(experiment: Experiment, products: Products, asOf: Date, realizedAsOf: Date? = nil) {
        self.experiment = experiment
        self.realizedAsOf = realizedAsOf.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) }
        horizonDays = experiment.forecast.horizonDays
        self.asOf = Int64((asOf.timeIntervalSince1970 * 1_000_000).rounded())
        horizon = Int64(horizonDays) * Self.microsPerDay
        // Mature as the report reads maturity: the longest trial plus `metrics.maturity_grace_days`.
        matureAge = Int64(experiment.maturityDays) * Self.microsPerDay
        keys = experiment.variants.map(\.key)
        let everyPlan = products.offerings.keys.sorted().flatMap { products.offerings[$0]!.values.sorted { $0.price < $1.price } }
        plans = experiment.variants.map { v in
            let own = v.paywall.flatMap { products.offerings[$0.offering] }.map { Array($0.values) } ?? []
            return (own.isEmpty ? everyPlan : own.sorted { $0.price < $1.price }).map(PlanPeriod.init)
        }
        planPrices = plans.map { $0.map(\.plan.price) }
        var byProduct: [String: PlanPeriod] = [:]
        for plan in everyPlan where byProduct[plan.productID] == nil { byProduct[plan.productID] = PlanPeriod(plan) }
        planByProduct = byProduct
        payerCells = Array(repeating: [:], count: keys.count)
        quietUsers = Array(repeating: 0, count: keys.count)
        exposed = Array(repeating: 0, count: keys.count)
        payers = Array(repeating: 0, count: keys.count)
        unmatchedPayers = Array(repeating: 0, count: keys.count)
        realized = Array(repeating: 0, count: keys.count)
        stillToCome = Array(repeating: 0, count: keys.count)
    }

    /// Per arm, every mature user by cell.
    public var cells: [[RevenueForecast.Cell: Int]] {
        payerCells.indices.map { v in
            var all = payerCells[v]
            if quietUsers[v] > 0 { all[Self.quietCell, default: 0] += quietUsers[v] }
            return all
        }
    }

    static let quietCell = RevenueForecast.Cell(period: nil, price: 0, payments: 0, churned: false, due: 0, revenue: 0)

    /// Mature users per arm.
    public var users: [Int] { cells.map { $0.values.reduce(0, +) } }

    /// Counts one user (forced users and unknown variants are left out).
    public mutating func add(_ row: UserFacts) {
        if !experiment.forced.isEmpty, experiment.forced[row.userID] != nil { return }
        guard let v = keys.firstIndex(of: row.variant) else { return }
        record(row, arm: v)
    }

    /// Counts one user of arm `v` whom the caller has already checked (not forced, of this experiment).
    mutating func record<Row: FactRow>(_ row: Row, arm v: Int) {
        let exposure = row.firstExposureMicros
        guard exposure < asOf else { return }
        exposed[v] += 1
        guard asOf - exposure >= matureAge else { return }
        if row.revenueEntries.isEmpty && realizedAsOf == nil {
            quietUsers[v] += 1
            return
        }
        let seen = asOf - exposure
        if let later = realizedAsOf {
            let followed = later - exposure
            for e in row.revenueEntries where e.offset < horizon && e.offset <= followed { realized[v] += e.amount }
            stillToCome[v] += Double(min(max(horizon - followed, 0), horizon)) / Double(horizon)
        }
        var revenue = 0.0, proceeds = 0.0, payments = 0
        var firstPayment: RevenueEntry?, lastPayment: Int64 = 0, lastAmount = 0.0, lastProceeds = 0.0
        for e in row.revenueEntries where e.offset < seen {
            if e.offset < horizon {
                revenue += e.amount
                proceeds += e.proceeds
            }
            if e.amount > 0 {
                payments += 1
                if firstPayment == nil { firstPayment = e }
                lastPayment = e.offset
                lastAmount = e.amount
                lastProceeds = e.proceeds
            }
        }
        guard let first = firstPayment else {
            payerCells[v][RevenueForecast.Cell(period: nil, price: 0, payments: 0, churned: false, due: 0, revenue: revenue, proceeds: proceeds), default: 0] += 1
            return
        }
        payers[v] += 1
        // The plan by the payment's product id; a payment that names none, by its price among the arm's plans.
        let placed = first.productID.map { planByProduct[$0] } ?? plan(paying: first.amount, arm: v)
        guard let plan = placed?.plan, let days = placed?.days else {
            unmatchedPayers[v] += 1
            payerCells[v][RevenueForecast.Cell(period: nil, price: 0, payments: payments, churned: true, due: payments, revenue: revenue,
                                               proceeds: proceeds), default: 0] += 1
            return
        }
        let period = Int64(days) * Self.microsPerDay
        let last = exposure + lastPayment
        // The one end rule (a cancel that stood, or an expiry other than a pause; a re-subscription's too) or
        // a refund after the last payment; else, for stores that say nothing, a payment overdue by a period and the grace.
        let refunded = row.refundedMicros.map { $0 >= last && $0 < asOf } ?? false
        let churned = row.hasEnd(from: last, before: asOf) || refunded
            || asOf > last + period + Self.overdueGraceDays * Self.microsPerDay
        // Payment j falls at first + (j − 1)·period; those before the horizon are due.
        let due = first.offset < horizon ? Int((horizon - 1 - first.offset) / period) + 1 : 0
        let renews = days < horizonDays
        // Renewals at what this payer last paid for a period, in the report currency: a payer in
        // another storefront or currency renews at its own price, not at the price table's; and bring in
        // proceeds as that payment did (the same store's cut and tax).
        let cell = RevenueForecast.Cell(period: renews ? plan.period : nil, price: renews ? lastAmount : 0, payments: payments,
                                        churned: renews ? churned : true, due: renews ? due : payments, revenue: revenue,
                                        proceedsPrice: renews ? lastProceeds : 0, proceeds: proceeds)
        payerCells[v][cell, default: 0] += 1
    }

    /// The arm's plan whose price is nearest `amount` (the first such), within 1%; nil when none is.
    /// Found among the prices by index: comparing the plans themselves copied two of them, their
    /// strings retained, per plan and payer.
    func plan(paying amount: Double, arm v: Int) -> PlanPeriod? {
        let prices = planPrices[v]
        guard !prices.isEmpty else { return nil }
        var best = 0
        for i in prices.indices.dropFirst() where abs(prices[i] - amount) < abs(prices[best] - amount) { best = i }
        return abs(prices[best] - amount) <= 0.01 * prices[best] ? plans[v][best] : nil
    }
}
