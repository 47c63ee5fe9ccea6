import Foundation

/// The beta-discrete-Weibull model of subscription renewals (Fader, Hardie, Liu, Davin and Steenburgh,
/// "How to project customer retention revisited", 2018).
///
/// Each payer has θ ~ Beta(α, β) and churns at the t-th renewal with probability 1 − (1 − θ)^(t^c − (t−1)^c),
/// so S(t) = P(T > t) = B(α, β + t^c) / B(α, β). c = 1 is the shifted-beta-geometric model; c > 1 lets
/// churn rise with tenure, c < 1 fall faster than heterogeneity alone makes it.
public struct BetaDiscreteWeibull: Sendable, Equatable {
    public var alpha: Double
    public var beta: Double
    public var c: Double

    public init(alpha: Double, beta: Double, c: Double) {
        self.alpha = alpha
        self.beta = beta
        self.c = c
    }

    /// The shifted-beta-geometric model as the c = 1 member.
    public init(_ sbg: ShiftedBetaGeometric) {
        self.init(alpha: sbg.alpha, beta: sbg.beta, c: 1)
    }

    /// c's range: a fit beyond it ends on a bound, and the forecast keeps the sBG.
    public static let cRange: ClosedRange<Double> = 0.1...10

    /// log S(t) for t = 0 … `through`.
    func logSurvivals(through: Int) -> [Double] {
        let count = max(through, 0) + 1
        return [Double](unsafeUninitializedCapacity: count) { out, initialized in
            writeLogSurvivals(into: out, through: through)
            initialized = count
        }
    }

    /// Writes log S(t) for t = 0 … `through` into `out`'s first `through + 1` places.
    private func writeLogSurvivals(into out: UnsafeMutableBufferPointer<Double>, through: Int) {
        out[0] = 0
        guard through >= 1 else { return }
        let base = lgamma(alpha + beta) - lgamma(beta)
        for t in 1...through {
            let b = beta + pow(Double(t), c)
            out[t] = lgamma(b) - lgamma(alpha + b) + base
        }
    }

    /// S(t): the chance a payer makes more than `t` payments. S(0) = 1.
    public func survival(_ t: Int) -> Double {
        t <= 0 ? 1 : exp(logSurvivals(through: t)[t])
    }

    /// Expected further payments of a payer who has made `payments` payments and is still subscribed,
    /// among payments `payments + 1 … due`: Σ_{j=payments+1..due} S(j − 1) / S(payments − 1).
    public func expectedFurtherPayments(after payments: Int, due: Int) -> Double {
        guard payments >= 1, due > payments else { return 0 }
        let logS = logSurvivals(through: due - 1)
        var total = 0.0
        for j in (payments + 1)...due { total += exp(logS[j - 1] - logS[payments - 1]) }
        return total
    }

    /// The log-likelihood of one period's payers: a payer who churned after k payments contributes
    /// S(k − 1) − S(k), a censored one S(k − 1).
    public func logLikelihood(_ history: RenewalHistory) -> Double {
        logLikelihood(Payers(history))
    }

    /// One period's payers in the order the likelihood sums them (by payments), so a fit is the same
    /// bytes however the history was built.
    struct Payers {
        var churned: [(k: Int, n: Double)]
        var censored: [(k: Int, n: Double)]
        var most: Int

        init(_ history: RenewalHistory) {
            churned = history.churned.filter { $0.value > 0 && $0.key >= 1 }.sorted { $0.key < $1.key }.map { ($0.key, Double($0.value)) }
            censored = history.censored.filter { $0.value > 0 && $0.key >= 1 }.sorted { $0.key < $1.key }.map { ($0.key, Double($0.value)) }
            most = max(churned.last?.k ?? 0, censored.last?.k ?? 0)
        }
    }

    func logLikelihood(_ payers: Payers) -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: payers.most + 1) { logLikelihood(payers, scratch: $0) }
    }

    /// The same, with log S(t) written into `logS` (at least `payers.most + 1` long): a fit's many
    /// values then need no array each.
    func logLikelihood(_ payers: Payers, scratch logS: UnsafeMutableBufferPointer<Double>) -> Double {
        writeLogSurvivals(into: logS, through: payers.most)
        var ll = 0.0
        // log(S(k−1) − S(k)) = log S(k−1) + log(1 − S(k)/S(k−1)).
        for (k, n) in payers.churned { ll += n * (logS[k - 1] + log(-expm1(logS[k] - logS[k - 1]))) }
        for (k, n) in payers.censored { ll += n * logS[k - 1] }
        return ll
    }
}

/// One plan period's renewal model across arms: each arm's shifted-beta-geometric fit, the
/// beta-discrete-Weibull fit with one c shared by every arm, and the likelihood-ratio test between them.
public struct RenewalModelChoice: Sendable, Equatable {
    public enum Name: String, Sendable {
        case sbg, bdw
    }

    /// Per arm, the sBG fit (nil for an arm with no payers of the period).
    public var sbg: [ShiftedBetaGeometric?]
    /// Per arm, the bdw fit with the shared c; nil when it could not be fitted or ended on a bound.
    public var bdw: [BetaDiscreteWeibull?]?
    /// 2 (log L_bdw − log L_sbg) over all arms; 0 when the bdw was not fitted.
    public var statistic: Double
    /// P(χ²₁ ≥ statistic).
    public var pValue: Double
    /// The bdw ended on a bound (α + β beyond the cap, c outside `BetaDiscreteWeibull.cRange`) or did not settle.
    public var onBound: Bool

    /// The model the forecast uses: the bdw when the test prefers it at `level` and its fit is inside its bounds.
    public func chosen(level: Double = 0.05) -> Name {
        bdw != nil && !onBound && pValue < level ? .bdw : .sbg
    }

    /// Expected further payments for arm `arm` under the chosen (or `name`d) model.
    public func expectedFurtherPayments(arm: Int, after payments: Int, due: Int, model name: Name? = nil) -> Double {
        let name = name ?? chosen()
        if name == .bdw, let b = bdw?[arm] { return b.expectedFurtherPayments(after: payments, due: due) }
        return sbg[arm]?.expectedFurtherPayments(after: payments, due: due) ?? 0
    }

    /// Fits both models to each arm's payers of one period. `start`: a bdw fit to begin from (a bootstrap
    /// draw starts from the observed data's), else each arm's sBG with c = 1.
    public static func fit(_ histories: [RenewalHistory?], cap: Double = ShiftedBetaGeometric.defaultCap,
                           start: [BetaDiscreteWeibull?]? = nil) throws -> RenewalModelChoice {
        let sbg = try histories.map { h in try h.flatMap { $0.payers > 0 ? try ShiftedBetaGeometric.fit($0, cap: cap) : nil } }
        var choice = RenewalModelChoice(sbg: sbg, bdw: nil, statistic: 0, pValue: 1, onBound: false)
        // The bdw needs, in every arm with payers, churned payers and renewals (an interior sBG fit).
        let fitted = histories.indices.filter { histories[$0].map { $0.payers > 0 } ?? false }
        guard !fitted.isEmpty, fitted.allSatisfy({ i in
            let h = histories[i]!, s = sbg[i]!
            return h.churnedPayers > 0 && h.renewals > 0 && s.alpha > 0 && s.beta > 0
        }) else { return choice }
        let payers = histories.map { $0.map(BetaDiscreteWeibull.Payers.init) }
        let sbgLL = fitted.reduce(0.0) { $0 + BetaDiscreteWeibull(sbg[$1]!).logLikelihood(payers[$1]!) }
        // First every arm free; arms whose α + β then lies beyond the cap (or whose sBG sits on it) are
        // fitted again on the cap, α + β = cap (a discrete Weibull with no heterogeneity seen).
        var onCap = Set(fitted.filter { sbg[$0]!.capped })
        var attempt = fitBdw(payers, fitted: fitted, onCap: onCap, sbg: sbg, cap: cap, start: start)
        if let (models, _) = attempt, case let beyond = fitted.filter({ i in models[i].map { $0.alpha + $0.beta > cap } ?? false }), !beyond.isEmpty {
            onCap.formUnion(beyond)
            attempt = fitBdw(payers, fitted: fitted, onCap: onCap, sbg: sbg, cap: cap, start: start)
        } else if attempt == nil && onCap.count < fitted.count {
            onCap = Set(fitted)
            attempt = fitBdw(payers, fitted: fitted, onCap: onCap, sbg: sbg, cap: cap, start: start)
        }
        guard let (models, best) = attempt, let c = models.compactMap({ $0?.c }).first else {
            choice.onBound = true
            return choice
        }
        let onBound = !BetaDiscreteWeibull.cRange.contains(c)
        choice.bdw = models
        choice.onBound = onBound
        choice.statistic = max(0, 2 * (best - sbgLL))
        choice.pValue = SpecialFunctions.regularizedGammaQ(0.5, choice.statistic / 2)
        return choice
    }
}

extension RenewalModelChoice {
    /// The bdw with one c over the `fitted` arms by maximum likelihood: free arms in (log α, log β), arms
    /// `onCap` in α = cap · σ(z), β = cap − α; then log c. nil when the search does not settle.
    static func fitBdw(_ histories: [BetaDiscreteWeibull.Payers?], fitted: [Int], onCap: Set<Int>, sbg: [ShiftedBetaGeometric?], cap: Double,
                       start: [BetaDiscreteWeibull?]?) -> ([BetaDiscreteWeibull?], Double)? {
        // x: each fitted arm's coordinates from its first (`firsts`), two for a free arm, one on the cap; then log c.
        var x0: [Double] = [], firsts: [Int] = []
        for i in fitted {
            firsts.append(x0.count)
            let s = start?[i] ?? BetaDiscreteWeibull(sbg[i]!)
            if onCap.contains(i) {
                let share = min(max(s.alpha / (s.alpha + s.beta), 1e-12), 1 - 1e-12)
                x0.append(log(share / (1 - share)))
            } else {
                x0 += [log(s.alpha), log(s.beta)]
            }
        }
        x0.append(log(start?.compactMap { $0 }.first?.c ?? 1))
        let free = fitted.map { !onCap.contains($0) }
        func model(_ k: Int, _ x: [Double]) -> BetaDiscreteWeibull {
            let c = exp(x[x.count - 1]), j = firsts[k]
            if !free[k] {
                let a = cap / (1 + exp(-x[j]))
                return BetaDiscreteWeibull(alpha: a, beta: cap - a, c: c)
            }
            return BetaDiscreteWeibull(alpha: exp(x[j]), beta: exp(x[j + 1]), c: c)
        }
        func models(_ x: [Double]) -> [BetaDiscreteWeibull?] {
            var out = [BetaDiscreteWeibull?](repeating: nil, count: histories.count)
            for (k, i) in fitted.enumerated() { out[i] = model(k, x) }
            return out
        }
        // An arm's log-likelihood depends on its own coordinates and c alone, and the finite differences
        // move one or two coordinates at a time: an arm whose coordinates did not move is read back from
        // a small cache of its points (`ArmPoints`), not computed again. The same bits in give the same
        // bits out, and the sum keeps its order, so the fit is the same to the byte whatever the cache holds.
        // The cache and log S(t) live in buffers of the fit's own: the likelihood is evaluated thousands
        // of times a fit, and an array or a checked access each time cost more than its arithmetic.
        let payers = fitted.map { histories[$0]! }
        let cache = ArmPoints(arms: fitted.count)
        let logS = UnsafeMutableBufferPointer<Double>.allocate(capacity: (payers.map(\.most).max() ?? 0) + 1)
        logS.initialize(repeating: 0)
        defer {
            cache.deallocate()
            logS.deallocate()
        }
        func ll(_ x: [Double]) -> Double {
            var total = 0.0
            let c = x[x.count - 1].bitPattern
            for k in fitted.indices {
                let j = firsts[k]
                let point = ArmPoints.Point(first: x[j].bitPattern, second: free[k] ? x[j + 1].bitPattern : 0, c: c)
                if let value = cache.value(arm: k, at: point) {
                    total += value
                    continue
                }
                let value = model(k, x).logLikelihood(payers[k], scratch: logS)
                cache.keep(value, arm: k, at: point)
                total += value
            }
            return total.isNaN ? -.infinity : total
        }
        // Bounds on the search itself: beyond them the fit is on a bound anyway.
        let limit = log(cap) + 2, cLimit = log(BetaDiscreteWeibull.cRange.upperBound) + 2
        guard let (x, best) = Maximizer.newton(ll, from: x0, inside: { x in
            x.last!.magnitude <= cLimit && x.dropLast().allSatisfy { $0 <= limit && $0 >= -30 }
        }) else { return nil }
        return (models(x), best)
    }
}

/// Each arm's log-likelihood at the points of a bdw search it visited last, by the bits of its
/// coordinates and c: a direct-mapped cache (one slot per hash, a newer point takes the slot), which a
/// lookup reads in one comparison where a scan of the last few points took dozens.
private struct ArmPoints {
    struct Point: Equatable {
        let first, second, c: UInt64
    }

    private struct Entry {
        var point: Point
        var value: Double
        var filled: Bool
    }

    /// 2^shift slots an arm: more than one Newton step's finite differences visit.
    private static let shift = 7
    private let entries: UnsafeMutableBufferPointer<Entry>

    init(arms: Int) {
        entries = .allocate(capacity: arms << Self.shift)
        entries.initialize(repeating: Entry(point: Point(first: 0, second: 0, c: 0), value: 0, filled: false))
    }

    func deallocate() { entries.deallocate() }

    private func slot(arm: Int, _ p: Point) -> Int {
        let mixed = p.first &* 0x9E37_79B9_7F4A_7C15 ^ p.second &* 0xC2B2_AE3D_27D4_EB4F ^ p.c &* 0x1656_67B1_9E37_79F9
        return arm << Self.shift | Int(truncatingIfNeeded: mixed >> (64 - UInt64(Self.shift)))
    }

    func value(arm: Int, at p: Point) -> Double? {
        let e = entries[slot(arm: arm, p)]
        return e.filled && e.point == p ? e.value : nil
    }

    func keep(_ value: Double, arm: Int, at p: Point) {
        entries[slot(arm: arm, p)] = Entry(point: p, value: value, filled: true)
    }
}
