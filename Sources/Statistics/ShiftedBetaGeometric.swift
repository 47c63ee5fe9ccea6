import Foundation

/// The shifted-beta-geometric model of subscription renewals (Fader and Hardie, "How to project
/// customer retention", 2007).
///
/// Each payer has a per-period churn probability θ drawn from Beta(α, β) and, after each payment,
/// churns with probability θ. T, the number of payments a payer makes, is then shifted-geometric given θ:
/// P(T = t) = B(α + 1, β + t − 1) / B(α, β) and S(t) = P(T > t) = B(α, β + t) / B(α, β).
/// α = 0 is the limit of no churn at all (S = 1); β = 0 the limit of everyone churning after one payment.
public struct ShiftedBetaGeometric: Sendable, Equatable {
    public var alpha: Double
    public var beta: Double
    /// The fit hit the cap on α + β: no heterogeneity seen, so the model is a plain geometric one.
    public var capped: Bool

    public init(alpha: Double, beta: Double, capped: Bool = false) {
        self.alpha = alpha
        self.beta = beta
        self.capped = capped
    }

    /// The cap on α + β.
    public static let defaultCap = 1e4

    /// S(t): the chance a payer makes more than `t` payments. S(0) = 1.
    public func survival(_ t: Int) -> Double {
        var s = 1.0
        for i in 0..<max(t, 0) { s *= ratio(i) }
        return s
    }

    /// P(T = t) for t >= 1: the chance a payer makes exactly `t` payments.
    public func churnProbability(at t: Int) -> Double {
        guard t >= 1 else { return 0 }
        return survival(t - 1) * (1 - ratio(t - 1))
    }

    /// Expected further payments of a payer who has made `payments` payments and is still subscribed,
    /// among payments `payments + 1 … due`: Σ_{j=payments+1..due} S(j − 1) / S(payments − 1).
    public func expectedFurtherPayments(after payments: Int, due: Int) -> Double {
        guard payments >= 1, due > payments else { return 0 }
        var total = 0.0
        var conditional = 1.0
        for j in (payments + 1)...due {
            // S(j − 1) / S(payments − 1) = Π_{i = payments − 1 … j − 2} (β + i) / (α + β + i).
            conditional *= ratio(j - 2)
            total += conditional
        }
        return total
    }

    /// S(i + 1) / S(i) = (β + i) / (α + β + i).
    @inline(__always) func ratio(_ i: Int) -> Double {
        let b = beta + Double(i)
        let s = alpha + b
        return s == 0 ? 1 : b / s
    }
}

/// Payers of one plan period: how many payments each made and whether each has churned.
///
/// A churned payer with k payments contributes P(T = k) to the likelihood; a censored one (still
/// subscribed as far as anyone knows) contributes S(k − 1).
public struct RenewalHistory: Sendable, Equatable {
    /// Payments → churned payers with that many payments.
    public var churned: [Int: Int]
    /// Payments → censored payers with that many payments.
    public var censored: [Int: Int]

    public init(churned: [Int: Int] = [:], censored: [Int: Int] = [:]) {
        self.churned = churned
        self.censored = censored
    }

    public mutating func add(payments: Int, churned isChurned: Bool, count: Int = 1) {
        guard payments >= 1, count > 0 else { return }
        if isChurned { churned[payments, default: 0] += count } else { censored[payments, default: 0] += count }
    }

    public var payers: Int { churned.values.reduce(0, +) + censored.values.reduce(0, +) }
    public var churnedPayers: Int { churned.values.reduce(0, +) }
    /// Payments after the first, over all payers.
    public var renewals: Int {
        churned.reduce(0) { $0 + ($1.key - 1) * $1.value } + censored.reduce(0) { $0 + ($1.key - 1) * $1.value }
    }
}

extension ShiftedBetaGeometric {
    /// The log-likelihood's sufficient statistics: A log α + Σ c_i log(β + i) − Σ d_i log(α + β + i).
    struct LikelihoodTerms {
        var churned = 0.0
        /// c_i: payers with at least i + 2 payments (each survived renewal i).
        var betaCounts: [Double] = []
        /// d_i: churned payers with at least i + 1 payments plus censored ones with at least i + 2.
        var totalCounts: [Double] = []

        init(_ history: RenewalHistory) {
            let most = max(history.churned.keys.max() ?? 0, history.censored.keys.max() ?? 0)
            betaCounts = Array(repeating: 0, count: max(most - 1, 0))
            totalCounts = Array(repeating: 0, count: most)
            for (k, n) in history.churned where n > 0 && k >= 1 {
                churned += Double(n)
                for i in 0..<(k - 1) { betaCounts[i] += Double(n) }
                for i in 0..<k { totalCounts[i] += Double(n) }
            }
            for (k, n) in history.censored where n > 0 && k >= 1 {
                for i in 0..<(k - 1) { betaCounts[i] += Double(n); totalCounts[i] += Double(n) }
            }
        }

        func logLikelihood(_ a: Double, _ b: Double) -> Double {
            var ll = churned > 0 ? churned * log(a) : 0
            for (i, c) in betaCounts.enumerated() where c > 0 { ll += c * log(b + Double(i)) }
            for (i, d) in totalCounts.enumerated() where d > 0 { ll -= d * log(a + b + Double(i)) }
            return ll
        }

        /// Gradient and Hessian in (log α, log β).
        func derivatives(_ a: Double, _ b: Double) -> (gx: Double, gy: Double, hxx: Double, hyy: Double, hxy: Double) {
            var da = churned / a, db = 0.0
            var daa = -churned / (a * a), dbb = 0.0, dab = 0.0
            for (i, c) in betaCounts.enumerated() where c > 0 {
                let x = b + Double(i)
                db += c / x
                dbb -= c / (x * x)
            }
            for (i, d) in totalCounts.enumerated() where d > 0 {
                let s = a + b + Double(i)
                da -= d / s
                db -= d / s
                let h = d / (s * s)
                daa += h; dbb += h; dab += h
            }
            return (a * da, b * db, a * a * daa + a * da, b * b * dbb + b * db, a * b * dab)
        }
    }

    /// Maximum likelihood fit to `history`, with α + β capped at `cap`.
    ///
    /// No churned payer: α = 0 (nobody churns), the likelihood's limit. No renewal at all: β = 0. Nobody yet
    /// at risk of a second renewal: on the cap (one churn rate seen, so no heterogeneity).
    /// Throws when there are no payers.
    public static func fit(_ history: RenewalHistory, cap: Double = defaultCap) throws -> ShiftedBetaGeometric {
        guard history.payers > 0 else { throw StatisticsError.insufficientData("no payers to fit") }
        try Check.finite(cap, "cap")
        let terms = LikelihoodTerms(history)
        if terms.churned == 0 { return ShiftedBetaGeometric(alpha: 0, beta: 1) }
        if terms.betaCounts.allSatisfy({ $0 == 0 }) { return ShiftedBetaGeometric(alpha: 1, beta: 0) }
        // Nobody yet at risk of a second renewal: the likelihood reads the first renewal's churn alone, α/(α + β),
        // and is flat along it, so heterogeneity is not seen; without this the fit would stop wherever its
        // search met that ridge, and a bootstrap draw wherever its own did.
        if terms.totalCounts.dropFirst().allSatisfy({ $0 == 0 }) { return onCap(terms, cap: cap) }
        if let interior = newton(terms, cap: cap) { return interior }
        return onCap(terms, cap: cap)
    }

    /// Newton's method in (log α, log β) with a backtracking line search; nil when the maximum lies
    /// beyond the cap (the iterates leave it) or the iteration does not settle.
    static func newton(_ terms: LikelihoodTerms, cap: Double) -> ShiftedBetaGeometric? {
        var x = 0.0, y = 0.0
        var ll = terms.logLikelihood(1, 1)
        for _ in 0..<200 {
            let (a, b) = (exp(x), exp(y))
            let d = terms.derivatives(a, b)
            // Newton's step where H is negative definite, else bent towards the gradient (the likelihood is
            // not concave everywhere in log α, log β).
            let s = Maximizer.ascentStep(gradient: [d.gx, d.gy], hessian: [[d.hxx, d.hxy], [d.hxy, d.hyy]])
            var (sx, sy) = (s[0], s[1])
            let longest = max(abs(sx), abs(sy))
            if longest > 2 { sx *= 2 / longest; sy *= 2 / longest }
            var step = 1.0
            var accepted = false
            for _ in 0..<60 {
                let (nx, ny) = (x + step * sx, y + step * sy)
                let candidate = terms.logLikelihood(exp(nx), exp(ny))
                if candidate.isFinite && candidate >= ll - 1e-12 * abs(ll) {
                    x = nx; y = ny; ll = max(candidate, ll)
                    accepted = true
                    break
                }
                step /= 2
            }
            if !accepted || exp(x) + exp(y) > cap * 4 || x > 50 || y > 50 { break }
            if max(abs(step * sx), abs(step * sy)) < 1e-13 {
                guard exp(x) + exp(y) <= cap else { return nil }
                return ShiftedBetaGeometric(alpha: exp(x), beta: exp(y))
            }
        }
        let (a, b) = (exp(x), exp(y))
        let d = terms.derivatives(a, b)
        if a + b <= cap && max(abs(d.gx), abs(d.gy)) < 1e-8 * max(1, abs(ll)) { return ShiftedBetaGeometric(alpha: a, beta: b) }
        return nil
    }

    /// The maximum on α + β = cap: there only A log α + Σ c_i log(cap − α + i) moves, a concave function
    /// of α whose derivative A/α − Σ c_i/(cap − α + i) falls from +∞ to −∞; its root by bisection.
    static func onCap(_ terms: LikelihoodTerms, cap: Double) -> ShiftedBetaGeometric {
        func slope(_ a: Double) -> Double {
            var s = terms.churned / a
            for (i, c) in terms.betaCounts.enumerated() where c > 0 { s -= c / (cap - a + Double(i)) }
            return s
        }
        var low = 0.0, high = cap
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if mid == low || mid == high { break }
            if slope(mid) > 0 { low = mid } else { high = mid }
        }
        let a = (low + high) / 2
        return ShiftedBetaGeometric(alpha: a, beta: cap - a, capped: true)
    }
}
