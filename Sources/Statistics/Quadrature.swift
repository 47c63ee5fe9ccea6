import Foundation

/// Adaptive Gauss–Legendre integration for the Bayesian module.
///
/// Each segment is integrated with a 20-point rule and split in two until the
/// halves agree with the whole to `tolerance` (absolute). Callers pass breakpoints
/// that bracket the peaks of the integrand, so narrow posteriors (n = 1e7) are not missed.
enum Quadrature {
    /// Nodes and weights of the 20-point Gauss–Legendre rule on [-1, 1], found by Newton's method on P₂₀.
    static let rule: (nodes: [Double], weights: [Double]) = {
        let n = 20
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
        return (nodes, weights)
    }()

    /// ∫ f over [a, b] with a single 20-point rule.
    static func gauss(_ f: (Double) -> Double, _ a: Double, _ b: Double) -> Double {
        let half = (b - a) / 2, mid = (a + b) / 2
        var sum = 0.0
        for (x, w) in zip(rule.nodes, rule.weights) { sum += w * f(mid + half * x) }
        return sum * half
    }

    /// ∫ f over [a, b], adaptively.
    static func integrate(_ f: (Double) -> Double, _ a: Double, _ b: Double, tolerance: Double, depth: Int = 0) -> Double {
        let whole = gauss(f, a, b)
        return refine(f, a, b, whole: whole, tolerance: tolerance, depth: depth)
    }

    private static func refine(_ f: (Double) -> Double, _ a: Double, _ b: Double, whole: Double, tolerance: Double, depth: Int) -> Double {
        let mid = (a + b) / 2
        let left = gauss(f, a, mid), right = gauss(f, mid, b)
        if abs(left + right - whole) <= tolerance || depth >= 40 || mid <= a || mid >= b { return left + right }
        return refine(f, a, mid, whole: left, tolerance: tolerance / 2, depth: depth + 1)
            + refine(f, mid, b, whole: right, tolerance: tolerance / 2, depth: depth + 1)
    }

    /// ∫ f over [0, 1] split at `breakpoints` (values outside (0, 1) are ignored).
    static func integrateUnitInterval(_ f: (Double) -> Double, breakpoints: [Double], tolerance: Double) -> Double {
        var points = Set(breakpoints.filter { $0 > 0 && $0 < 1 })
        points.insert(0); points.insert(1)
        let sorted = points.sorted()
        var total = 0.0
        for (a, b) in zip(sorted, sorted.dropFirst()) where b > a {
            total += integrate(f, a, b, tolerance: tolerance)
        }
        return total
    }
}
