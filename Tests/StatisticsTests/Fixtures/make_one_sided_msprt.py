#!/usr/bin/env python3
"""one_sided_msprt.json: the one-sided normal-mixture mSPRT of safeguards (docs/Safeguards.md).

    python3 make_one_sided_msprt.py             # writes the fixture
    python3 make_one_sided_msprt.py --tuning    # the mixing's tuning table of docs/Safeguards.md

No library implements it, so the reference does not transcribe the closed form of
OneSidedSequentialTest.swift: it integrates the likelihood ratio exp((t x - t^2/2)/s^2) against the
half-normal mixing density 2 phi(t/tau)/tau on t > 0 numerically (scipy.integrate.quad, scaled by
the integrand's maximum), and finds the look's lower bound x - d* by scipy.optimize.brentq on that
integral (log Lambda(d*) = log(1/alpha)). Per case: looks of cumulative counts (control count,
control total, arm count, arm total), higher_is_harm, tau2 and alpha; per look: log_ratio, the
running-minimum p-value and the running-maximum lower bound of the harm (-1 when s^2 = 0).
Needs numpy, scipy.
"""
import json, math, os
import numpy as np
from scipy import integrate, optimize

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261206)


def log_lambda(x, s2, tau2):
    """log of the integral over t > 0 of exp((t x - t^2/2)/s2) * 2/(tau sqrt(2 pi)) exp(-t^2/(2 tau2))."""
    tau = math.sqrt(tau2)
    a = 1 / s2 + 1 / tau2
    t_max = max(0.0, (x / s2) / a)

    def logf(t):
        return t * x / s2 - t * t / (2 * s2) - t * t / (2 * tau2) + math.log(2 / (tau * math.sqrt(2 * math.pi)))

    m = logf(t_max)
    width = 1 / math.sqrt(a)
    upper = t_max + 40 * width
    pieces = [0.0] + ([t_max] if t_max > 0 else []) + [upper]
    total = 0.0
    for lo, hi in zip(pieces, pieces[1:]):
        v, _ = integrate.quad(lambda t: math.exp(logf(t) - m), lo, hi, epsabs=0, epsrel=1e-13, limit=200)
        total += v
    return m + math.log(total)


def bound_distance(s2, tau2, alpha):
    target = math.log(1 / alpha)
    hi = math.sqrt(2 * s2 * (s2 + tau2) / tau2 * (target + 0.5 * math.log1p(tau2 / s2)))
    return optimize.brentq(lambda d: log_lambda(d, s2, tau2) - target, 0.0, hi, xtol=1e-15, rtol=1e-14, maxiter=500)


def reference(looks, higher_is_harm, tau2, alpha):
    out, best_p, best_bound = [], 1.0, -1.0
    for kc, nc, ka, na in looks:
        pc, pa = kc / nc, ka / na
        d = pa - pc if higher_is_harm else pc - pa
        s2 = pc * (1 - pc) / nc + pa * (1 - pa) / na
        if s2 > 0:
            ll = log_lambda(d, s2, tau2)
            bound = max(-1.0, d - bound_distance(s2, tau2, alpha))
        else:
            ll, bound = 0.0, -1.0
        best_p = min(best_p, math.exp(-max(0.0, ll)))
        best_bound = max(best_bound, bound)
        out.append({"log_ratio": ll, "p_value": best_p, "lower_bound": best_bound})
    return out


def main():
    cases = []
    for i in range(160):
        days = int(rng.integers(1, 15))
        daily = int(10 ** rng.uniform(1, 3.3))
        pc = 10 ** rng.uniform(-2, -0.3)
        harm = rng.choice([0.0, 0.0, 0.2, 0.4, -0.2, 1.0])
        pa = min(0.95, pc * (1 + harm))
        higher = bool(rng.integers(0, 2))
        if not higher:
            pa = max(0.001, pc * (1 - harm))
        alpha = float(rng.choice([0.05, 0.025, 0.0125, 0.01]))
        tau2 = float((rng.choice([0.1, 0.2, 0.5]) * pc) ** 2)
        looks, kc, nc, ka, na = [], 0, 0, 0, 0
        for _ in range(days):
            n1, n2 = int(rng.poisson(daily)) + 1, int(rng.poisson(daily)) + 1
            kc += int(rng.binomial(n1, pc)); nc += n1
            ka += int(rng.binomial(n2, pa)); na += n2
            looks.append([kc, nc, ka, na])
        if i == 0:
            looks = [[0, 10, 0, 12], [0, 30, 5, 31], [4, 60, 9, 58]]   # s2 = 0 at the first look
        cases.append({"looks": looks, "higher_is_harm": higher, "tau2": tau2, "alpha": alpha,
                      "expected": reference(looks, higher, tau2, alpha)})
    with open(os.path.join(HERE, "one_sided_msprt.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")


def tuning():
    """In standard errors (z = x/s, r = s^2/tau^2): the z needed to stop, per tau/s, and tau/delta where
    the boundary is tightest for a harm delta found with 80% and 90% power."""
    from scipy import stats

    def z_star(r, alpha):
        f = lambda z: (math.log(2) + 0.5 * math.log(r / (1 + r)) + z * z / (2 * (1 + r))
                       + stats.norm.logcdf(z / math.sqrt(1 + r)) - math.log(1 / alpha))
        return optimize.brentq(f, 0, 50)

    for alpha in (0.05, 0.025, 0.0125):
        rs = np.exp(np.linspace(math.log(0.01), math.log(5), 400))
        zs = np.array([z_star(r, alpha) for r in rs])
        i = int(zs.argmin())
        tau_s = 1 / math.sqrt(rs[i])
        print(f"alpha {alpha}: tightest at tau = {tau_s:.2f} s, z* = {zs[i]:.3f}; z* at tau/s 1.5, 2, 3, 4, 6: "
              + ", ".join(f"{z_star(1 / k ** 2, alpha):.3f}" for k in (1.5, 2, 3, 4, 6))
              + f"; tau/delta {tau_s / (zs[i] + 0.8416):.2f} (80% power), {tau_s / (zs[i] + 1.2816):.2f} (90%)")


if __name__ == "__main__":
    import sys
    tuning() if "--tuning" in sys.argv else main()
