import Foundation

/// Newton's method for the few smooth likelihoods of a handful of parameters that the renewal models fit.
enum Maximizer {
    /// The maximum of `f` from `x0` with finite-difference derivatives: modified Newton steps
    /// (`ascentStep`) with backtracking; `inside` bounds the search. nil when it leaves `inside` or does not settle.
    static func newton(_ f: ([Double]) -> Double, from x0: [Double], inside: ([Double]) -> Bool) -> ([Double], Double)? {
        var x = x0
        var fx = f(x)
        guard fx.isFinite else { return nil }
        let d = x.count
        var risen = Double.infinity
        for _ in 0..<200 {
            let previous = fx
            let (g, h) = derivatives(f, x, fx)
            // Settled on a ridge: the last step no longer raised the value and the slope is gone, though the
            // steps along the flat direction need not shrink.
            if risen <= 1e-12 * abs(fx) && g.map(\.magnitude).max()! < 1e-6 * max(1, abs(fx)) { return (x, fx) }
            var step = ascentStep(gradient: g, hessian: h)
            let longest = step.map(\.magnitude).max()!
            if longest > 1 { step = step.map { $0 / longest } }
            var t = 1.0
            var moved = false
            for _ in 0..<50 {
                let candidate = (0..<d).map { x[$0] + t * step[$0] }
                guard inside(candidate) else { t /= 2; continue }
                let fc = f(candidate)
                if fc.isFinite && fc >= fx - 1e-12 * abs(fx) {
                    x = candidate
                    fx = max(fc, fx)
                    moved = true
                    break
                }
                t /= 2
            }
            guard moved else { break }
            // Settled: the step is below what the finite differences resolve, or the value stopped rising.
            let size = step.map({ ($0 * t).magnitude }).max()!
            risen = fx - previous
            if size < 1e-10 || (size < 1e-6 && fx - previous <= 1e-14 * abs(fx)) { return (x, fx) }
        }
        let (g, _) = derivatives(f, x, fx)
        return g.map(\.magnitude).max()! < 1e-5 * max(1, abs(fx)) && inside(x) ? (x, fx) : nil
    }

    /// The step towards a maximum from gradient `g` and Hessian `h`: s with (λI − H) s = g, λ = 0 where −H is
    /// positive definite (Newton's step), else the least of a rising ladder that makes λI − H so.
    ///
    /// A renewal model's likelihood is not concave everywhere in its log parameters (it bends along a ridge
    /// between heterogeneity and the mean churn), and there a plain gradient step zigzags across the ridge in
    /// ever smaller steps and can spend every iteration before it arrives; the shift keeps Newton's use of the
    /// curvature and turns the step towards the gradient only as far as the curvature needs.
    static func ascentStep(gradient g: [Double], hessian h: [[Double]]) -> [Double] {
        let n = g.count
        var shifted = h.map { $0.map { -$0 } }
        if let s = choleskySolve(shifted, g) { return s }
        let scale = max((0..<n).map { h[$0][$0].magnitude }.max() ?? 0, 1e-12)
        var lambda = 1e-6 * scale
        for _ in 0..<60 {
            for i in 0..<n { shifted[i][i] = lambda - h[i][i] }
            if let s = choleskySolve(shifted, g) { return s }
            lambda *= 4
        }
        let largest = max(1, g.map(\.magnitude).max() ?? 1)
        return g.map { $0 / largest }
    }

    /// Central-difference gradient and Hessian.
    static func derivatives(_ f: ([Double]) -> Double, _ x: [Double], _ fx: Double) -> ([Double], [[Double]]) {
        let d = x.count
        let e = 1e-4
        // One point moved in place and put back, rather than a copy of x per value.
        var y = x
        func at(_ i: Int, _ di: Double, _ j: Int? = nil, _ dj: Double = 0) -> Double {
            y[i] = x[i] + di
            if let j { y[j] = x[j] + dj }
            defer {
                y[i] = x[i]
                if let j { y[j] = x[j] }
            }
            return f(y)
        }
        var g = [Double](repeating: 0, count: d)
        var h = [[Double]](repeating: [Double](repeating: 0, count: d), count: d)
        for i in 0..<d {
            let up = at(i, e), down = at(i, -e)
            g[i] = (up - down) / (2 * e)
            h[i][i] = (up - 2 * fx + down) / (e * e)
            for j in 0..<i {
                let v = (at(i, e, j, e) - at(i, e, j, -e) - at(i, -e, j, e) + at(i, -e, j, -e)) / (4 * e * e)
                h[i][j] = v
                h[j][i] = v
            }
        }
        return (g, h)
    }

    /// Solves A s = b for symmetric positive definite A; nil when A is not.
    static func choleskySolve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        // L row-major in one array: the ladder in `ascentStep` may solve dozens of times a step.
        var l = [Double](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0...i {
                var s = a[i][j]
                for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
                if i == j {
                    guard s > 0, s.isFinite else { return nil }
                    l[i * n + i] = s.squareRoot()
                } else {
                    l[i * n + j] = s / l[j * n + j]
                }
            }
        }
        var y = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var s = b[i]
            for k in 0..<i { s -= l[i * n + k] * y[k] }
            y[i] = s / l[i * n + i]
        }
        var s = [Double](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var v = y[i]
            for k in (i + 1)..<n { v -= l[k * n + i] * s[k] }
            s[i] = v / l[i * n + i]
        }
        return s
    }
}
