import Foundation

/// Revenue per user at a horizon: revenue to date plus the expected further payments of payers who
/// are still subscribed, with renewals following a shifted-beta-geometric or beta-discrete-Weibull
/// model per plan period (`RenewalModelChoice` chooses between them across arms).
///
/// Users are grouped into cells of equal figures (a million users make a few dozen cells), so a
/// bootstrap that resamples users is a multinomial draw over the cells followed by a refit.
public struct RevenueForecast: Sendable {
    /// Users alike in everything the forecast reads.
    public struct Cell: Sendable, Hashable {
        /// The plan's period (a model is fitted per period); nil for users who never paid, or whose
        /// plan renews no more within the horizon.
        public var period: String?
        /// The plan's price in the report currency: what each further payment earns.
        public var price: Double
        /// Payments made so far (0 for non-payers).
        public var payments: Int
        /// Churned (no further payment will come) rather than censored.
        public var churned: Bool
        /// Payments due within the horizon, counting the first (J).
        public var due: Int
        /// Revenue already earned within the horizon (refunds subtracted).
        public var revenue: Double
        /// What each further payment brings in proceeds (after the store's cut and tax); `price` when not given.
        public var proceedsPrice: Double
        /// Proceeds already received within the horizon (refunds subtracted); `revenue` when not given.
        public var proceeds: Double

        public init(period: String?, price: Double, payments: Int, churned: Bool, due: Int, revenue: Double,
                    proceedsPrice: Double? = nil, proceeds: Double? = nil) {
            self.period = period
            self.price = price
            self.payments = payments
            self.churned = churned
            self.due = due
            self.revenue = revenue
            self.proceedsPrice = proceedsPrice ?? price
            self.proceeds = proceeds ?? revenue
        }
    }

    public var cells: [Cell]
    public var counts: [Int]
    public var cap: Double

    /// `users`: cell → number of users; cells are kept in a stable order (largest first).
    public init(users: [Cell: Int], cap: Double = ShiftedBetaGeometric.defaultCap) {
        let ordered = users.filter { $0.value > 0 }.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            return Self.order(a.key, b.key)
        }
        cells = ordered.map(\.key)
        counts = ordered.map(\.value)
        self.cap = cap
    }

    static func order(_ a: Cell, _ b: Cell) -> Bool {
        if a.period != b.period { return (a.period ?? "") < (b.period ?? "") }
        if a.price != b.price { return a.price < b.price }
        if a.payments != b.payments { return a.payments < b.payments }
        if a.churned != b.churned { return !a.churned }
        if a.due != b.due { return a.due < b.due }
        if a.revenue != b.revenue { return a.revenue < b.revenue }
        if a.proceedsPrice != b.proceedsPrice { return a.proceedsPrice < b.proceedsPrice }
        return a.proceeds < b.proceeds
    }

    public var users: Int { counts.reduce(0, +) }

    /// Each period's payers, as the likelihood reads them.
    public func histories(counts: [Int]? = nil) -> [String: RenewalHistory] {
        let counts = counts ?? self.counts
        var result: [String: RenewalHistory] = [:]
        for (cell, n) in zip(cells, counts) where n > 0 && cell.payments > 0 {
            guard let period = cell.period else { continue }
            result[period, default: RenewalHistory()].add(payments: cell.payments, churned: cell.churned, count: n)
        }
        return result
    }

    /// A period's renewal model as the forecast uses it.
    public enum RenewalModel: Sendable, Equatable {
        case sbg(ShiftedBetaGeometric)
        case bdw(BetaDiscreteWeibull)

        public func expectedFurtherPayments(after payments: Int, due: Int) -> Double {
            switch self {
            case .sbg(let m): m.expectedFurtherPayments(after: payments, due: due)
            case .bdw(let m): m.expectedFurtherPayments(after: payments, due: due)
            }
        }
    }

    public struct Estimate: Sendable {
        public var revenuePerUser: Double
        /// The same forecast in proceeds: proceeds to date plus each further payment's proceeds (same models).
        public var proceedsPerUser: Double
        /// Period → the model used.
        public var models: [String: RenewalModel]
    }

    /// Bootstrap forecasts in draw order, gross and proceeds from the same resamples and fits.
    public struct Draws: Sendable, Equatable {
        public var revenue: [Double] = []
        public var proceeds: [Double] = []
        public init(revenue: [Double] = [], proceeds: [Double] = []) {
            self.revenue = revenue
            self.proceeds = proceeds
        }
    }

    /// The forecast from the observed users, or from a resample's `counts` (same cells), with each period's
    /// sBG fitted to them, or with the `models` given.
    public func estimate(counts: [Int]? = nil, models given: [String: RenewalModel]? = nil) throws -> Estimate {
        let counts = counts ?? self.counts
        var models: [String: RenewalModel] = given ?? [:]
        if given == nil {
            for (period, history) in histories(counts: counts) { models[period] = .sbg(try ShiftedBetaGeometric.fit(history, cap: cap)) }
        }
        var total = 0.0, totalProceeds = 0.0
        var users = 0
        for (cell, n) in zip(cells, counts) where n > 0 {
            users += n
            var value = cell.revenue, proceeds = cell.proceeds
            if !cell.churned, cell.payments > 0, let period = cell.period, let model = models[period] {
                let further = model.expectedFurtherPayments(after: cell.payments, due: cell.due)
                value += cell.price * further
                proceeds += cell.proceedsPrice * further
            }
            total += Double(n) * value
            totalProceeds += Double(n) * proceeds
        }
        guard users > 0 else { throw StatisticsError.insufficientData("no users to forecast") }
        return Estimate(revenuePerUser: total / Double(users), proceedsPerUser: totalProceeds / Double(users), models: models)
    }

    /// Per period, the choice between the sBG and the bdw over the arms' payers (one model serves
    /// every arm). `counts`: each arm's resample; `start`: fits to start the bdw from.
    public static func chooseModels(_ arms: [RevenueForecast], counts: [[Int]]? = nil,
                                    start: [String: RenewalModelChoice]? = nil) throws -> [String: RenewalModelChoice] {
        let histories = arms.indices.map { a in arms[a].histories(counts: counts?[a]) }
        let periods = Set(histories.flatMap(\.keys)).sorted()
        var result: [String: RenewalModelChoice] = [:]
        for period in periods {
            result[period] = try RenewalModelChoice.fit(histories.map { $0[period] }, cap: arms[0].cap, start: start?[period]?.bdw)
        }
        return result
    }

    /// Arm `arm`'s models under `choices` (each period's chosen model, or the `forcing` one where it was fitted).
    public static func models(_ choices: [String: RenewalModelChoice], arm: Int,
                              forcing: RenewalModelChoice.Name? = nil) -> [String: RenewalModel] {
        var out: [String: RenewalModel] = [:]
        for (period, choice) in choices {
            let name = forcing ?? choice.chosen()
            if name == .bdw, let m = choice.bdw?[arm] { out[period] = .bdw(m) } else if let m = choice.sbg[arm] { out[period] = .sbg(m) }
        }
        return out
    }

    /// Bootstrap forecasts of several arms at once, each arm resampled from its own stream (`seeds`), and
    /// each draw choosing each period's model again over the arms' resamples (the interval carries the
    /// choice's uncertainty). `start`: the observed data's choices, where each draw's bdw fit begins.
    public static func bootstrap(_ arms: [RevenueForecast], draws: Int = 1000, seeds: [UInt64],
                                 start: [String: RenewalModelChoice]? = nil) throws -> [Draws] {
        var rngs = seeds.map { SplitMix64(seed: $0) }
        let weights = arms.map { $0.counts.map(Double.init) }
        var result = [Draws](repeating: Draws(), count: arms.count)
        for _ in 0..<draws {
            var resamples: [[Int]] = []
            for a in arms.indices { resamples.append(try RandomVariates.multinomial(trials: arms[a].users, weights: weights[a], using: &rngs[a])) }
            let choices = try chooseModels(arms, counts: resamples, start: start)
            for a in arms.indices {
                let e = try arms[a].estimate(counts: resamples[a], models: models(choices, arm: a))
                result[a].revenue.append(e.revenuePerUser)
                result[a].proceeds.append(e.proceedsPerUser)
            }
        }
        return result
    }

    /// `draws` bootstrap forecasts (users resampled with replacement, every model refitted), in draw
    /// order; the same `seed` gives the same draws.
    public func bootstrap(draws: Int = 1000, seed: UInt64) throws -> Draws {
        var rng = SplitMix64(seed: seed)
        let n = users
        let weights = counts.map(Double.init)
        var result = Draws()
        result.revenue.reserveCapacity(draws)
        result.proceeds.reserveCapacity(draws)
        for _ in 0..<draws {
            let resample = try RandomVariates.multinomial(trials: n, weights: weights, using: &rng)
            let e = try estimate(counts: resample)
            result.revenue.append(e.revenuePerUser)
            result.proceeds.append(e.proceedsPerUser)
        }
        return result
    }

    /// The central `level` interval of `draws` (numpy's linear quantiles).
    public static func interval(_ draws: [Double], level: Double = 0.9) throws -> (Double, Double) {
        let sorted = draws.sorted()
        let tail = (1 - level) / 2
        return (try Quantile.linear(sorted: sorted, tail), try Quantile.linear(sorted: sorted, 1 - tail))
    }
}
