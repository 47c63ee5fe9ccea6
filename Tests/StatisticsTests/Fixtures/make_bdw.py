#!/usr/bin/env python3
"""bdw.json: the beta-discrete-Weibull renewal model beside the shifted-beta-geometric (Fader,
Hardie, Liu, Davin and Steenburgh 2018).

    python3 make_bdw.py

Per case: one plan period's payers in 1 to 3 arms, each arm as counts of (payments k, churned or
censored), drawn from a bdw with c in 0.5 .. 2.5 (or exactly 1, the sBG). S(t) = B(a, b + t^c)/B(a, b)
with scipy.special.betaln; a payer churned after k payments contributes S(k-1) - S(k), a censored one
S(k-1). Fits by scipy.optimize: each arm's sBG (c = 1) over (log a, log b), and the bdw with one c
shared by the arms over (log a_i, log b_i, log c), each by BFGS from several starts, the best polished
by Nelder-Mead at tight tolerances. Per case: both maximised log-likelihoods, c, the likelihood-ratio
statistic 2 (ll_bdw - ll_sbg) and its chi-square(1) p-value, and, for given parameters, S(t) and the
expected further payments sum_{j=k+1..J} S(j-1)/S(k-1) (a check of the formulas alone).
Needs numpy, scipy.
"""
import json, math, os
import numpy as np
from scipy import optimize, special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20181206)


def log_s(a, b, c, t):
    t = np.asarray(t, dtype=float)
    return special.betaln(a, b + t ** c) - special.betaln(a, b)


def arrays(churned, censored):
    ck = np.array(sorted(churned), dtype=float); cn = np.array([churned[k] for k in sorted(churned)], dtype=float)
    ek = np.array(sorted(censored), dtype=float); en = np.array([censored[k] for k in sorted(censored)], dtype=float)
    return ck, cn, ek, en


def loglik(a, b, c, churned, censored):
    ck, cn, ek, en = churned if isinstance(churned, tuple) else arrays(churned, censored)
    s0, s1 = log_s(a, b, c, ck - 1), log_s(a, b, c, ck)
    ll = float(np.sum(cn * (s0 + np.log(-np.expm1(s1 - s0)))))
    if len(ek):
        ll += float(np.sum(en * log_s(a, b, c, ek - 1)))
    return ll


def best_fit(fun, starts):
    best = None
    for x0 in starts:
        try:
            r = optimize.minimize(fun, x0, method="BFGS", options={"gtol": 1e-10, "maxiter": 2000})
        except (ValueError, OverflowError):
            continue
        if np.isfinite(r.fun) and (best is None or r.fun < best.fun):
            best = r
    r = optimize.minimize(fun, best.x, method="Nelder-Mead",
                          options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 8000, "maxfev": 16000})
    return r if r.fun <= best.fun else best


def safe(f):
    def g(x):
        try:
            v = f(x)
        except (ValueError, OverflowError, ZeroDivisionError):
            return 1e300
        return v if np.isfinite(v) else 1e300
    return g


def simulate(a, b, c, payers, observed_months):
    """Payers start over observed_months; each renews until churn (bdw) or censoring at its tenure."""
    churned, censored = {}, {}
    thetas = rng.beta(a, b, size=payers)
    for theta in thetas:
        tenure = int(rng.integers(1, observed_months + 1))   # payments seen possible
        k = 1
        while True:
            if k >= tenure:
                censored[k] = censored.get(k, 0) + 1
                break
            p_churn = 1 - (1 - theta) ** (k ** c - (k - 1) ** c)
            if rng.random() < p_churn:
                churned[k] = churned.get(k, 0) + 1
                break
            k += 1
    return churned, censored


def main():
    cases = []
    while len(cases) < 30:
        arms = int(rng.integers(1, 4))
        c_true = float(rng.choice([1.0, 1.0, 0.6, 1.5, 2.0, 2.5]))
        a, b = float(rng.uniform(0.6, 3)), float(rng.uniform(2, 12))
        histories = []
        for _ in range(arms):
            payers = int(rng.integers(150, 1500))
            ch, ce = simulate(a * rng.uniform(0.8, 1.25), b, c_true, payers, int(rng.integers(8, 16)))
            histories.append((ch, ce))
        if any(not ch for ch, ce in histories):
            continue
        sbg = []
        sbg_ll = 0.0
        packed = [arrays(ch, ce) for ch, ce in histories]
        for ch, ce in histories:
            p = arrays(ch, ce)
            f = safe(lambda x: -loglik(math.exp(x[0]), math.exp(x[1]), 1.0, p, None))
            r = best_fit(f, [[0.0, 1.0], [0.5, 2.0], [-0.5, 0.5]])
            sbg.append([math.exp(r.x[0]), math.exp(r.x[1])])
            sbg_ll += -r.fun
        def joint(x):
            c = math.exp(x[-1])
            return -sum(loglik(math.exp(x[2 * i]), math.exp(x[2 * i + 1]), c, p, None) for i, p in enumerate(packed))
        starts = [sum(([math.log(p[0]), math.log(p[1])] for p in sbg), []) + [lc] for lc in (0.0, 0.4, -0.4)]
        r = best_fit(safe(joint), starts)
        c_hat = math.exp(r.x[-1])
        fits = [[math.exp(r.x[2 * i]), math.exp(r.x[2 * i + 1])] for i in range(arms)]
        if not (0.1 <= c_hat <= 10) or any(p[0] + p[1] > 1e4 for p in fits + sbg):
            continue
        stat = max(0.0, 2 * (-r.fun - sbg_ll))
        pa, pb, pc = float(rng.uniform(0.3, 4)), float(rng.uniform(0.5, 20)), float(rng.uniform(0.3, 3))
        further = []
        for _ in range(5):
            k = int(rng.integers(1, 12)); J = k + int(rng.integers(0, 14))
            ls = log_s(pa, pb, pc, np.arange(0, J))
            further.append({"k": k, "due": J, "value": float(sum(math.exp(ls[j - 1] - ls[k - 1]) for j in range(k + 1, J + 1)))})
        cases.append({
            "arms": [{"churned": {str(k): n for k, n in sorted(ch.items())}, "censored": {str(k): n for k, n in sorted(ce.items())}}
                     for ch, ce in histories],
            "true_c": c_true,
            "sbg": sbg, "sbg_loglik": sbg_ll,
            "bdw": fits, "c": c_hat, "bdw_loglik": -r.fun,
            "statistic": stat, "p_value": float(stats.chi2.sf(stat, 1)),
            "model": {"alpha": pa, "beta": pb, "c": pc,
                      "survival": [float(math.exp(v)) for v in log_s(pa, pb, pc, np.arange(0, 15))],
                      "further": further},
        })
    with open(os.path.join(HERE, "bdw.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
