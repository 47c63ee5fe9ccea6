import Foundation

/// Adaptive Gauss–Legendre integration for the Bayesian module.
///
/// Each segment is integrated with a 20-point rule; the difference from a 10-point rule
/// on the same segment bounds its error (conservatively), and segments that miss
/// `tolerance` are halved. Callers pass breakpoints that bracket the peaks of the
/// integrand, so narrow posteriors (n = 1e7) are not missed.
enum Quadrature {
    struct Rule: Sendable {
        let nodes: [Double]
        let weights: [Double]

        /// The n-point Gauss–Legendre rule on [-1, 1], found by Newton's method on Pₙ.
        init(points n: Int) {
            var nodes = [Double](), weights = [Double]()
            for i in 1...n {
                var x = cos(Double.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
                var derivative = 0.0
                for _ in 0..<100 {
                    var p0 = 1.0, p1 = x
                    for k in 2...n {
                        let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                        p0 = p1; p1 = p2
                    }
                    derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                    let step = p1 / derivative
                    x -= step
                    if abs(step) < 1e-16 { break }
                }
                nodes.append(x)
                weights.append(2 / ((1 - x * x) * derivative * derivative))
            }
            self.nodes = nodes
            self.weights = weights
        }

        /// ∫ f over [a, b] with this rule.
        func apply(_ f: (Double) -> Double, _ a: Double, _ b: Double) -> Double {
            let half = (b - a) / 2, mid = (a + b) / 2
            var sum = 0.0
            for i in nodes.indices { sum += weights[i] * f(mid + half * nodes[i]) }
            return sum * half
        }
    }

    static let fine = Rule(points: 20)
    static let coarse = Rule(points: 10)

    /// ∫ f over [a, b], adaptively, to about `tolerance` absolute.
    static func integrate(_ f: (Double) -> Double, _ a: Double, _ b: Double, tolerance: Double, depth: Int = 0) -> Double {
        let good = fine.apply(f, a, b)
        let rough = coarse.apply(f, a, b)
        let mid = (a + b) / 2
        // The integrands carry ~1e-13 relative round-off, so asking for less than 1e-12 of the
        // segment's value would only split forever; depth 16 bounds the work in any case.
        if abs(good - rough) <= max(tolerance, 1e-12 * abs(good)) || depth >= 16 || mid <= a || mid >= b { return good }
        return integrate(f, a, mid, tolerance: tolerance / 2, depth: depth + 1)
            + integrate(f, mid, b, tolerance: tolerance / 2, depth: depth + 1)
    }

    /// ∫ f from the first to the last of `points`, split at every point.
    static func integrate(_ f: (Double) -> Double, points: [Double], tolerance: Double) -> Double {
        let sorted = Array(Set(points)).sorted()
        var total = 0.0
        for (a, b) in zip(sorted, sorted.dropFirst()) { total += integrate(f, a, b, tolerance: tolerance) }
        return total
    }
}
