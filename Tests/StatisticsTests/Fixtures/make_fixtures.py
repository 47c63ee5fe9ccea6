#!/usr/bin/env python3
"""Generate the JSON fixtures that StatisticsTests compares the Swift code against.

Run from anywhere:  python3 Tests/StatisticsTests/Fixtures/make_fixtures.py
Needs numpy, scipy, mpmath, statsmodels and lifelines. Output is deterministic (fixed seed);
re-running rewrites every *.json in this folder;
`make_fixtures.py NAME...` rewrites only those (each has its own seed).

Oracles, per file:
  special.json     mpmath at 40 digits (ncdf, betainc, gammainc, log beta, findroot for quantiles); where
                   mpmath's series does not converge (beta parameters ~1e6) scipy.special instead, marked
                   "oracle": "scipy". scipy itself is off by up to 4e-9 in betaln for such arguments.
  wilson.json      statsmodels proportion_confint(method="wilson")
  comparison.json  statsmodels proportions_ztest (pooled p-value) and confint_proportions_2indep
                   (method="wald", compare="diff"); the relative lift's log-ratio interval from
                   confint_proportions_2indep(compare="ratio", method="log") (make_log_ratio.py rewrites it alone).
  welch.json       scipy ttest_ind(equal_var=False) with .confidence_interval() on raw arrays
                   (ttest_ind_from_stats for the n = 1e7 cases); the relative lift's interval is the delta method on
                   the log of the ratio of means, written out here (make_log_ratio.py rewrites it alone)
  bayes.json       exact chance to win by Evan Miller's closed-form sum (first term by mpmath, the rest by
                   exact term ratios accumulated in log space with numpy), expected loss
                   by the identity E[max(C-V,0)] = m_C P(C+ > V) - m_V P(C > V+), both cross-checked with
                   scipy.integrate.quad on a subset. gbstats' chance_to_win is a log-normal approximation,
                   so it is not an oracle for it; gbstats' "risk" (expected loss by 24-node Gauss-Jacobi on
                   the exact posteriors) is stored as gbstats_loss where that quadrature is accurate.
  best.json        chance to be best among k arms by scipy.integrate.quad (QUADPACK) of pdf_j * prod cdf_i,
                   segment by segment between mean +- {0..60} sd of every arm; asserted to sum to 1 and,
                   for two arms, to equal the exact sum
  multiple.json    statsmodels multipletests(method="holm" / "fdr_bh")
  srm.json         scipy chisquare
  power.json       statsmodels samplesize_proportions_2indep_onetail and power_proportions_2indep
  km.json          lifelines KaplanMeierFitter (survival_function_at_times, confidence_interval_)
  logrank.json     lifelines multivariate_logrank_test (and logrank_test for two groups, asserted equal)
  msprt.json       no library implements the normal-mixture mSPRT for two proportions; an independent
                   straightforward Python transcription of the formula (see SequentialTest.swift)
"""
import json
import math
import os
import warnings

import numpy as np
from scipy import integrate, special, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    power_proportions_2indep,
    proportion_confint,
    proportions_ztest,
    samplesize_proportions_2indep_onetail,
)
from gbstats.bayesian.main import binomial_ab_test
from lifelines import KaplanMeierFitter
from lifelines.statistics import logrank_test, multivariate_logrank_test

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261130)


def write(name, cases):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {len(cases)} cases")


def f(x):
    return float(x)


def alpha_choice():
    return float(rng.choice([0.05, 0.05, 0.01, 0.1, 0.2, 0.001]))


# --------------------------------------------------------------------------------------------------
# Binomial pairs with the extremes the brief asks for.
def binomial_arm(kind):
    if kind == "tiny":
        n = int(rng.integers(1, 6))
    elif kind == "huge":
        n = 10_000_000
    elif kind == "small":
        n = int(rng.integers(6, 200))
    else:
        n = int(10 ** rng.uniform(2, 6))
    r = rng.random()
    if r < 0.1:
        c = 0
    elif r < 0.2:
        c = n
    else:
        p = float(10 ** rng.uniform(-3, -0.05)) if rng.random() < 0.8 else float(rng.random())
        c = int(rng.binomial(n, p))
    return c, n


def binomial_pairs(count):
    kinds = ["tiny", "small", "medium", "huge"]
    pairs = []
    for i in range(count):
        k1 = kinds[i % 4] if i < 40 else str(rng.choice(kinds, p=[0.1, 0.25, 0.5, 0.15]))
        k2 = k1 if rng.random() < 0.6 else str(rng.choice(kinds))  # unequal arms often
        pairs.append((binomial_arm(k1), binomial_arm(k2)))
    # Fixed extremes.
    pairs += [((0, 1), (1, 1)), ((0, 5), (0, 5)), ((5, 5), (5, 5)), ((0, 10_000_000), (3, 10_000_000)),
              ((10_000_000, 10_000_000), (9_999_990, 10_000_000)), ((1, 2), (300_000, 10_000_000))]
    return pairs


# --------------------------------------------------------------------------------------------------
MP = None


def mp_or(fn, fallback):
    """mpmath's high-precision value, or scipy's when mpmath's series does not converge."""
    try:
        return f(fn()), "mpmath"
    except Exception:  # mpmath.NoConvergence for huge beta parameters
        return f(fallback), "scipy"


def make_special():
    import mpmath as mp
    mp.mp.dps = 40
    M = mp.mpf

    def t_cdf(t, df):
        t, df = M(t), M(df)
        tail = mp.betainc(df / 2, M(1) / 2, 0, df / (df + t * t), regularized=True) / 2
        return 1 - tail if t > 0 else tail

    def t_quantile(p, df, start):
        return mp.findroot(lambda x: t_cdf(x, df) - M(p), M(start), tol=mp.mpf(10) ** -35)

    def n_quantile(p, start):
        return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(M(p)), M(start), tol=mp.mpf(10) ** -35)

    cases = []
    for _ in range(300):
        x = f(rng.uniform(-38, 38)) if rng.random() < 0.7 else f(rng.normal())
        v, o = mp_or(lambda: mp.ncdf(M(x)), special.ndtr(x))
        cases.append({"fn": "normal_cdf", "x": x, "expected": v, "oracle": o})
    for _ in range(300):
        lp = rng.uniform(-300, math.log10(0.5))
        p = f(10 ** lp)
        if rng.random() < 0.5 and p > 1e-15:
            p = f(1 - p)
        v, o = mp_or(lambda: n_quantile(p, special.ndtri(p)), special.ndtri(p))
        cases.append({"fn": "normal_quantile", "p": p, "expected": v, "oracle": o})
    for _ in range(300):
        df = f(10 ** rng.uniform(-0.3, 7))
        if rng.random() < 0.3:
            df = f(rng.integers(1, 30))
        t = f(rng.normal() * rng.choice([0.1, 1, 5, 50]))
        v, o = mp_or(lambda: t_cdf(t, df), special.stdtr(df, t))
        cases.append({"fn": "t_cdf", "x": t, "df": df, "expected": v, "oracle": o})
    for _ in range(300):
        df = f(10 ** rng.uniform(-0.3, 7))
        if rng.random() < 0.3:
            df = f(rng.integers(1, 30))
        p = f(10 ** rng.uniform(-12, math.log10(0.5)))
        if rng.random() < 0.5:
            p = f(1 - p)
        v, o = mp_or(lambda: t_quantile(p, df, stats.t.ppf(p, df)), stats.t.ppf(p, df))
        cases.append({"fn": "t_quantile", "p": p, "df": df, "expected": v, "oracle": o})
    for _ in range(300):
        k = f(rng.integers(1, 60))
        x = f(10 ** rng.uniform(-3, 3))
        v, o = mp_or(lambda: mp.gammainc(M(k) / 2, M(x) / 2, mp.inf, regularized=True), special.chdtrc(k, x))
        cases.append({"fn": "chi2_sf", "x": x, "df": k, "expected": v, "oracle": o})
    for _ in range(300):
        a = f(10 ** rng.uniform(-1, 6))
        b = f(10 ** rng.uniform(-1, 6))
        if rng.random() < 0.3:
            a, b = f(1 + rng.integers(0, 1_000_000)), f(1 + rng.integers(0, 10_000_000))
        m = a / (a + b)
        sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        x = f(min(max(m + rng.normal() * 3 * sd, 1e-12), 1 - 1e-12)) if rng.random() < 0.7 else f(rng.random())
        v, o = mp_or(lambda: mp.betainc(M(a), M(b), 0, M(x), regularized=True), special.betainc(a, b, x))
        cases.append({"fn": "betainc", "x": x, "a": a, "b": b, "expected": v, "oracle": o})
    for _ in range(200):
        a, b = f(10 ** rng.uniform(-1, 7)), f(10 ** rng.uniform(-1, 7))
        v, o = mp_or(lambda: mp.log(mp.beta(M(a), M(b))), special.betaln(a, b))
        cases.append({"fn": "betaln", "a": a, "b": b, "expected": v, "oracle": o})
    for _ in range(300):
        a = f(10 ** rng.uniform(-1, 3))
        x = f(a * 10 ** rng.uniform(-1, 0.5)) if rng.random() < 0.7 else f(10 ** rng.uniform(-3, 3))
        v, o = mp_or(lambda: mp.gammainc(M(a), 0, M(x), regularized=True), special.gammainc(a, x))
        cases.append({"fn": "gamma_p", "a": a, "x": x, "expected": v, "oracle": o})
        v, o = mp_or(lambda: mp.gammainc(M(a), M(x), mp.inf, regularized=True), special.gammaincc(a, x))
        cases.append({"fn": "gamma_q", "a": a, "x": x, "expected": v, "oracle": o})
    print("special oracles:", {o: sum(c["oracle"] == o for c in cases) for o in ("mpmath", "scipy")})
    write("special.json", cases)


def make_wilson():
    cases = []
    for (c, n), _ in binomial_pairs(260):
        alpha = alpha_choice()
        lo, hi = proportion_confint(c, n, alpha=alpha, method="wilson")
        cases.append({"count": c, "total": n, "alpha": alpha, "lower": f(lo), "upper": f(hi)})
    write("wilson.json", cases)


def make_comparison():
    cases = []
    for (c1, n1), (c2, n2) in binomial_pairs(300):
        alpha = alpha_choice()
        p1, p2 = c1 / n1, c2 / n2
        v1, v2 = p1 * (1 - p1) / n1, p2 * (1 - p2) / n2
        case = {"control_count": c1, "control_total": n1, "variant_count": c2, "variant_total": n2, "alpha": alpha}
        lo, hi = confint_proportions_2indep(c2, n2, c1, n1, method="wald", compare="diff", alpha=alpha)
        case["diff"] = f(p2 - p1)
        case["diff_ci"] = [f(lo), f(hi)]
        pooled = (c1 + c2) / (n1 + n2)
        if 0 < pooled < 1:
            z, p = proportions_ztest([c2, c1], [n2, n1], value=0, alternative="two-sided", prop_var=False)
            case["z"], case["p_value"] = f(z), f(p)
        else:
            case["z"], case["p_value"] = None, None  # statsmodels gives NaN; Swift defines p = 1
        if c1 > 0 and c2 > 0:
            lo, hi = confint_proportions_2indep(c2, n2, c1, n1, compare="ratio", method="log", alpha=alpha)
            case["lift"], case["lift_ci"] = f(p2 / p1 - 1), [f(lo - 1), f(hi - 1)]
        else:
            case["lift"], case["lift_ci"] = None, None
        cases.append(case)
    write("comparison.json", cases)


def revenue_sample(n):
    kind = rng.integers(0, 4)
    paid = rng.random(n) < rng.uniform(0.01, 0.5)
    if kind == 0:
        values = np.where(paid, rng.choice([9.99, 59.99, 4.99], size=n), 0.0)
    elif kind == 1:
        values = np.where(paid, rng.lognormal(2, 1, size=n), 0.0)
    elif kind == 2:
        values = rng.normal(rng.uniform(-5, 50), rng.uniform(0.1, 20), size=n)
    else:
        values = np.where(paid, 59.99, 0.0) - np.where(rng.random(n) < 0.01, 59.99, 0.0)  # refunds
    if np.var(values) == 0:
        values[0] += 1.0
    return values


def welch_lift(n1, sum1, ss1, n2, sum2, ss2, alpha):
    """Relative lift of the means with the delta method on the log of their ratio (no library oracle)."""
    m1, m2 = sum1 / n1, sum2 / n2
    v1 = (ss1 - sum1 * sum1 / n1) / (n1 - 1) / n1
    v2 = (ss2 - sum2 * sum2 / n2) / (n2 - 1) / n2
    lift = f(m2 / m1 - 1) if m1 > 0 else None
    if not (m1 > 0 and m2 > 0):
        return lift, None
    se = math.sqrt(max(v1, 0) / m1**2 + max(v2, 0) / m2**2)
    z = stats.norm.isf(alpha / 2)
    return lift, [f(math.exp(math.log(m2 / m1) - z * se) - 1), f(math.exp(math.log(m2 / m1) + z * se) - 1)]


def make_welch():
    cases = []
    for i in range(240):
        n1 = int(rng.integers(2, 6)) if i % 6 == 0 else int(10 ** rng.uniform(0.5, 5))
        n2 = int(rng.integers(2, 6)) if i % 7 == 0 else (n1 if rng.random() < 0.5 else int(10 ** rng.uniform(0.5, 5)))
        n1, n2 = max(n1, 2), max(n2, 2)
        x1, x2 = revenue_sample(n1), revenue_sample(n2)
        alpha = alpha_choice()
        res = stats.ttest_ind(x2, x1, equal_var=False)
        ci = res.confidence_interval(confidence_level=1 - alpha)
        cases.append({
            "control": [n1, f(x1.sum()), f((x1 * x1).sum())], "variant": [n2, f(x2.sum()), f((x2 * x2).sum())],
            "alpha": alpha, "t": f(res.statistic), "p_value": f(res.pvalue), "df": f(res.df),
            "ci": [f(ci.low), f(ci.high)], "diff": f(x2.mean() - x1.mean()),
        })
        c = cases[-1]
        c["lift"], c["lift_ci"] = welch_lift(*c["control"], *c["variant"], alpha)
    for _ in range(12):  # n = 1e7 from sufficient statistics (the arrays would be 80 MB each)
        n1, n2 = 10_000_000, int(rng.choice([10_000_000, 5_000_000, 1000]))
        m1, s1, m2, s2 = 2.0, 9.0, 2.0 + rng.normal() * 0.01, 9.0 * rng.uniform(0.8, 1.2)
        sum1, sum2 = m1 * n1, m2 * n2
        ss1, ss2 = s1**2 * (n1 - 1) + sum1**2 / n1, s2**2 * (n2 - 1) + sum2**2 / n2
        alpha = alpha_choice()
        t, p = stats.ttest_ind_from_stats(m2, s2, n2, m1, s1, n1, equal_var=False)
        v1, v2 = s1**2 / n1, s2**2 / n2
        df = (v1 + v2) ** 2 / (v1**2 / (n1 - 1) + v2**2 / (n2 - 1))
        half = stats.t.isf(alpha / 2, df) * math.sqrt(v1 + v2)
        cases.append({"control": [n1, f(sum1), f(ss1)], "variant": [n2, f(sum2), f(ss2)], "alpha": alpha,
                      "t": f(t), "p_value": f(p), "df": f(df), "ci": [f(m2 - m1 - half), f(m2 - m1 + half)],
                      "diff": f(m2 - m1)})
        c = cases[-1]
        c["lift"], c["lift_ci"] = welch_lift(*c["control"], *c["variant"], alpha)
    write("welch.json", cases)


# --------------------------------------------------------------------------------------------------
def prob_greater_exact(a1, b1, a2, b2):
    """P(X2 > X1) for X1 ~ Beta(a1, b1), X2 ~ Beta(a2, b2), integer parameters (Evan Miller's sum)."""

    def direct(a1, b1, a2, b2):  # sum over i < a2 of B(a1+i, b1+b2) / ((b2+i) B(1+i, b2) B(a1, b1))
        import mpmath as mp
        mp.mp.dps = 40
        lb = lambda x, y: mp.loggamma(x) + mp.loggamma(y) - mp.loggamma(x + y)
        c = b1 + b2
        # The first term at 40 digits (scipy's betaln is off by up to 1e-8 at these sizes), then
        # the exact term ratios (a1+i)/(a1+i+c) * (1+i+b2)/(1+i) * (b2+i)/(b2+i+1) in float64.
        log_t0 = np.longdouble(mp.nstr(lb(a1, c) - mp.log(b2) - lb(1, b2) - lb(a1, b1), 25))
        # Accumulated in 80-bit long double: a float64 running sum over 1e6 terms drifts by ~1e-9.
        i = np.arange(int(a2) - 1, dtype=np.longdouble)
        a1, b2, c = np.longdouble(a1), np.longdouble(b2), np.longdouble(c)
        log_r = -np.log1p(c / (a1 + i)) + np.log1p(b2 / (1 + i)) - np.log1p(1 / (b2 + i))
        logs = log_t0 + np.concatenate([np.zeros(1, dtype=np.longdouble), np.cumsum(log_r)])
        top = logs.max()
        return float(np.exp(top) * np.exp(logs - top).sum())

    options = [
        (a2, lambda: direct(a1, b1, a2, b2)),
        (a1, lambda: 1 - direct(a2, b2, a1, b1)),
        (b1, lambda: direct(b2, a2, b1, a1)),  # P(1-X1 > 1-X2)
        (b2, lambda: 1 - direct(b1, a1, b2, a2)),
    ]
    options.sort(key=lambda o: o[0])
    return min(1.0, max(0.0, options[0][1]()))


def prob_greater_quad(a1, b1, a2, b2):
    d1, d2 = stats.beta(a1, b1), stats.beta(a2, b2)
    pts = sorted({min(max(d.mean() + k * d.std(), 0.0), 1.0) for d in (d1, d2) for k in (-8, -4, -2, 0, 2, 4, 8)})
    val, _ = integrate.quad(lambda x: d1.pdf(x) * d2.sf(x), 0, 1, points=pts, epsabs=1e-13, epsrel=1e-12, limit=1000)
    return val


def make_bayes():
    cases = []
    checked = 0
    for (c1, n1), (c2, n2) in binomial_pairs(260):
        if min(c1, n1 - c1, c2, n2 - c2) > 2_000_000:
            c2 = min(c2, 1_500_000)  # keep the exact sum under ~2e6 terms
        a1, b1, a2, b2 = 1 + c1, 1 + n1 - c1, 1 + c2, 1 + n2 - c2
        ctw = prob_greater_exact(a1, b1, a2, b2)
        m1, m2 = a1 / (a1 + b1), a2 / (a2 + b2)
        loss = m1 * prob_greater_exact(a2, b2, a1 + 1, b1) - m2 * prob_greater_exact(a2 + 1, b2, a1, b1)
        loss = max(0.0, loss)
        if checked < 40 and max(n1, n2) < 1_000_000:
            q = prob_greater_quad(a1, b1, a2, b2)
            assert abs(q - ctw) < 1e-8, (c1, n1, c2, n2, q, ctw)
            # Expected loss by direct double integration of (c - v)+, checks the identity.
            dc, dv = stats.beta(a1, b1), stats.beta(a2, b2)
            inner = lambda c: c * dv.cdf(c) - m2 * stats.beta(a2 + 1, b2).cdf(c)
            pts = sorted({min(max(d.mean() + k * d.std(), 0.0), 1.0) for d in (dc, dv) for k in (-8, -4, -2, 0, 2, 4, 8)})
            direct, _ = integrate.quad(lambda c: dc.pdf(c) * inner(c), 0, 1, points=pts, epsabs=1e-14, limit=1000)
            assert abs(direct - loss) < 1e-9, (c1, n1, c2, n2, direct, loss)
            checked += 1
        # gbstats' own expected loss ("risk", 24-node Gauss-Jacobi over the exact Beta posteriors) where
        # that quadrature is accurate: arms of at least 100 users within a factor 10 of each other.
        gb = None
        if min(n1, n2) >= 100 and max(n1, n2) <= 10 * min(n1, n2):
            gb = f(binomial_ab_test(c1, n1, c2, n2)["risk"][1])
        cases.append({"control_count": c1, "control_total": n1, "variant_count": c2, "variant_total": n2,
                      "chance_to_win": ctw, "expected_loss": f(loss), "gbstats_loss": gb})
    write("bayes.json", cases)


def make_best():
    cases = []
    for i in range(220):
        k = int(rng.integers(2, 6))
        arms = [binomial_arm(str(rng.choice(["tiny", "small", "medium", "medium"]))) for _ in range(k)]
        if i % 5 == 0:  # close arms with the same n, the interesting case
            n = int(10 ** rng.uniform(2, 6))
            p = 10 ** rng.uniform(-2.5, -0.5)
            arms = [(int(rng.binomial(n, p)), n) for _ in range(k)]
        dists = [stats.beta(1 + c, 1 + n - c) for c, n in arms]
        ks = (-60, -35, -20, -12, -8, -5, -3, -2, -1, 0, 1, 2, 3, 5, 8, 12, 20, 35, 60)
        pts = sorted({0.0, 1.0} | {min(max(d.mean() + k * d.std(), 0.0), 1.0) for d in dists for k in ks})
        probs = []
        for j, dj in enumerate(dists):
            others = [d for i2, d in enumerate(dists) if i2 != j]
            g = lambda x: dj.pdf(x) * np.prod([d.cdf(x) for d in others])
            val = sum(integrate.quad(g, lo, hi, epsabs=1e-14, epsrel=1e-11, limit=500)[0]
                      for lo, hi in zip(pts, pts[1:]) if hi > lo)
            probs.append(f(val))
        assert abs(sum(probs) - 1) < 1e-7, (arms, probs)
        if k == 2:
            (c1, n1), (c2, n2) = arms
            assert abs(probs[1] - prob_greater_exact(1 + c1, 1 + n1 - c1, 1 + c2, 1 + n2 - c2)) < 1e-8
        cases.append({"arms": [[c, n] for c, n in arms], "expected": probs})
    write("best.json", cases)


# --------------------------------------------------------------------------------------------------
def make_multiple():
    cases = []
    for i in range(250):
        m = int(rng.integers(1, 12))
        p = rng.random(m) ** rng.uniform(1, 6)
        if i % 4 == 0 and m > 1:
            p[rng.integers(0, m)] = p[0]  # ties
        if i % 10 == 0:
            p[0] = 0.0
        if i % 11 == 0:
            p[-1] = 1.0
        p = [f(x) for x in p]
        holm = multipletests(p, method="holm")[1]
        bh = multipletests(p, method="fdr_bh")[1]
        cases.append({"p": p, "holm": [f(x) for x in holm], "bh": [f(x) for x in bh]})
    write("multiple.json", cases)


def make_srm():
    cases = []
    for i in range(250):
        k = int(rng.integers(2, 6))
        w = rng.choice([1.0, 1.0, 2.0, 0.5, 3.0], size=k) if i % 2 else np.ones(k)
        total = int(10 ** rng.uniform(0, 7))
        probs = w / w.sum()
        if i % 3 == 0:  # a real mismatch
            probs = probs * rng.uniform(0.9, 1.1, size=k)
            probs /= probs.sum()
        counts = rng.multinomial(total, probs)
        if counts.sum() == 0:
            counts[0] = 1
        expected = counts.sum() * w / w.sum()
        stat, p = stats.chisquare(counts, expected)
        cases.append({"counts": [int(c) for c in counts], "weights": [f(x) for x in w], "statistic": f(stat), "p_value": f(p)})
    write("srm.json", cases)


def make_power():
    cases = []
    for i in range(250):
        baseline = f(10 ** rng.uniform(-3, -0.1))
        mde = f(rng.choice([-1, 1]) * 10 ** rng.uniform(-2, 0))
        if not 0 < baseline * (1 + mde) < 1:
            mde = f(-mde * 0.5)
        if not 0 < baseline * (1 + mde) < 1:
            continue
        alpha = alpha_choice()
        power = f(rng.choice([0.8, 0.8, 0.9, 0.95, 0.5, 0.99]))
        k = int(rng.choice([2, 2, 3, 4, 5]))
        target = baseline * (1 + mde)
        n = samplesize_proportions_2indep_onetail(target - baseline, baseline, power, ratio=1, alpha=alpha / (k - 1),
                                                  alternative="two-sided")
        n_given = int(rng.integers(10, 100_000))
        achieved = power_proportions_2indep(target - baseline, baseline, n_given, ratio=1, alpha=alpha / (k - 1),
                                            alternative="two-sided", return_results=False)
        cases.append({"baseline": baseline, "mde": mde, "alpha": alpha, "power": power, "variants": k, "n": f(n),
                      "users_given": n_given, "achieved_power": f(achieved)})
    write("power.json", cases)


# --------------------------------------------------------------------------------------------------
def survival_sample(n):
    if rng.random() < 0.5:
        t = rng.integers(0, 45, size=n).astype(float)  # whole days: many ties
    else:
        t = np.round(rng.exponential(rng.uniform(3, 40), size=n), 3)
    e = rng.random(n) < rng.uniform(0.0, 1.0)
    return t, e


DAYS = [0.0, 1.0, 3.0, 7.0, 14.0, 30.0]


def make_km():
    cases = []
    for i in range(240):
        n = int(rng.integers(1, 6)) if i % 8 == 0 else int(10 ** rng.uniform(0.5, 3.5))
        t, e = survival_sample(n)
        if i % 13 == 0:
            e[:] = False  # all censored
        if i % 17 == 0:
            e[:] = True  # no censoring
        alpha = alpha_choice()
        kmf = KaplanMeierFitter(alpha=alpha).fit(t, e)
        times = sorted(set(DAYS + [f(x) for x in rng.uniform(0, 50, size=4)] + [f(x) for x in t[:3]]))
        surv = kmf.survival_function_at_times(times).values
        ci = kmf.confidence_interval_survival_function_
        lows, highs = [], []
        for x in times:
            rows = ci[ci.index <= x]
            if len(rows) == 0:
                lows.append(1.0); highs.append(1.0)
            else:
                lows.append(f(rows.iloc[-1, 0])); highs.append(f(rows.iloc[-1, 1]))
        cases.append({"times": [f(x) for x in t], "events": [bool(x) for x in e], "alpha": alpha, "at": times,
                      "survival": [f(x) for x in surv], "lower": lows, "upper": highs})
    write("km.json", cases)


def make_logrank():
    cases = []
    while len(cases) < 240:
        i = len(cases)
        k = 2 if i % 2 == 0 else int(rng.integers(3, 5))
        groups = []
        for g in range(k):
            n = int(rng.integers(1, 5)) if i % 9 == 0 else int(10 ** rng.uniform(0.5, 2.7))
            t, e = survival_sample(n)
            if i % 3 == 0:
                t = t * (1 + 0.5 * g)  # different hazards
            groups.append((t, e))
        if sum(int(e.sum()) for _, e in groups) == 0:
            continue
        durations = np.concatenate([t for t, _ in groups])
        events = np.concatenate([e for _, e in groups])
        labels = np.concatenate([[g] * len(t) for g, (t, _) in enumerate(groups)])
        res = multivariate_logrank_test(durations, labels, events)
        if not np.isfinite(res.p_value):
            continue
        if k == 2:
            two = logrank_test(groups[0][0], groups[1][0], groups[0][1], groups[1][1])
            assert abs(two.test_statistic - res.test_statistic) < 1e-9 * max(1, res.test_statistic)
        cases.append({"groups": [{"times": [f(x) for x in t], "events": [bool(x) for x in e]} for t, e in groups],
                      "statistic": f(res.test_statistic), "p_value": f(res.p_value)})
    write("logrank.json", cases)


# --------------------------------------------------------------------------------------------------
def msprt_reference(looks, tau2, alpha):
    out, best_p, interval = [], 1.0, None
    for c1, n1, c2, n2 in looks:
        p1, p2 = c1 / n1, c2 / n2
        d = p2 - p1
        s2 = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
        if s2 > 0:
            log_lam = 0.5 * math.log(s2 / (s2 + tau2)) + tau2 * d * d / (2 * s2 * (s2 + tau2))
            half = math.sqrt(2 * s2 * (s2 + tau2) / tau2 * (math.log(1 / alpha) + 0.5 * math.log((s2 + tau2) / s2)))
            cur = [max(-1.0, d - half), min(1.0, d + half)]
        else:
            log_lam, cur = 0.0, [-1.0, 1.0]
        best_p = min(best_p, math.exp(-max(0.0, log_lam)))
        if interval is None or max(interval[0], cur[0]) > min(interval[1], cur[1]):
            interval = cur
        else:
            interval = [max(interval[0], cur[0]), min(interval[1], cur[1])]
        out.append({"p_value": best_p, "lower": interval[0], "upper": interval[1], "log_ratio": log_lam})
    return out


def make_msprt():
    cases = []
    for i in range(220):
        days = int(rng.integers(1, 40))
        daily = int(10 ** rng.uniform(0.3, 4))
        pa = 10 ** rng.uniform(-2.5, -0.3)
        pb = pa * (1 + rng.choice([0, 0, 0.1, 0.3, -0.2]))
        tau2 = f(rng.choice([1e-4, 1e-4, 1e-3, 1e-5]))
        alpha = alpha_choice()
        looks, c1, n1, c2, n2 = [], 0, 0, 0, 0
        for _ in range(days):
            a, b = int(rng.integers(1, 2 * daily + 1)), int(rng.integers(1, 2 * daily + 1))
            c1 += int(rng.binomial(a, pa)); n1 += a
            c2 += int(rng.binomial(b, min(pb, 1.0))); n2 += b
            looks.append([c1, n1, c2, n2])
        cases.append({"looks": looks, "tau2": tau2, "alpha": alpha, "expected": msprt_reference(looks, tau2, alpha)})
    write("msprt.json", cases)


MAKERS = {
    "special": make_special, "wilson": make_wilson, "comparison": make_comparison, "welch": make_welch,
    "multiple": make_multiple, "srm": make_srm, "power": make_power, "km": make_km, "logrank": make_logrank,
    "msprt": make_msprt, "bayes": make_bayes, "best": make_best,
}

if __name__ == "__main__":
    import sys
    # Each fixture has its own fixed seed, so one can be regenerated alone: make_fixtures.py bayes
    for index, (name, maker) in enumerate(MAKERS.items()):
        if len(sys.argv) > 1 and name not in sys.argv[1:]:
            continue
        rng = np.random.default_rng([20261130, index])
        maker()
