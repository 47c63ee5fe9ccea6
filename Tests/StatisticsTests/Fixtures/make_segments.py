#!/usr/bin/env python3
"""Fixtures for post-stratification and Cochran's Q, compared by SegmentStatisticsTests.

Run from anywhere:  python3 Tests/StatisticsTests/Fixtures/make_segments.py
Needs numpy, scipy and statsmodels. Deterministic (fixed seed); writes poststrat.json and cochran.json.

Oracles:
  poststrat.json  raw per-user outcomes are drawn here (conversions, or revenue with many zeros) in
                  strata of very different sizes, some under 50 users in an arm. The strata are pooled
                  by the report's rule (written out here: under 50 in either arm -> one pool; a pool still
                  under 50 joins the largest stratum). The post-stratified difference and variance are
                  computed with numpy from the raw arrays, Σ w_s (mean_v,s - mean_c,s) and
                  Σ w_s² (var_v,s/n_v,s + var_c,s/n_c,s) (p(1 - p) for rates, ddof=1 for revenue);
                  the point estimate is also the treatment coefficient of a statsmodels OLS with full
                  treatment-by-stratum interactions (stratum dummies centred on the two arms' means,
                  Lin 2013), asserted equal. Swift is given each stratum's count, sum and sum of squares.
  cochran.json    Q = Σ w_i (d_i - d̄)², w_i = 1/v_i, with numpy; p = scipy.stats.chi2.sf(Q, k - 1);
                  statsmodels' meta-analysis combine_effects (its fixed-effect Q) asserted equal.
"""
import json
import os

import numpy as np
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261201)
MIN = 50


def summary(x):
    return {"count": int(len(x)), "sum": float(np.sum(x)), "sum_of_squares": float(np.sum(np.square(x)))}


def pool(strata):
    """Strata as (control array, variant array); returns the pooled list, kept order, pool last."""
    small = lambda s: len(s[0]) < MIN or len(s[1]) < MIN
    kept = [s for s in strata if not small(s)]
    smalls = [s for s in strata if small(s)]
    if not smalls:
        return kept
    p = (np.concatenate([s[0] for s in smalls]), np.concatenate([s[1] for s in smalls]))
    if small(p) and kept:
        i = max(range(len(kept)), key=lambda k: len(kept[k][0]) + len(kept[k][1]))
        kept[i] = (np.concatenate([kept[i][0], p[0]]), np.concatenate([kept[i][1], p[1]]))
    else:
        kept.append(p)
    return kept


def poststrat(strata, kind):
    total = sum(len(c) + len(v) for c, v in strata)
    d = var = mc = mv = vc = vv = 0.0
    for c, v in strata:
        w = (len(c) + len(v)) / total
        if kind == "bernoulli":
            sc, sv = c.mean() * (1 - c.mean()), v.mean() * (1 - v.mean())
        else:
            sc, sv = c.var(ddof=1), v.var(ddof=1)
        d += w * (v.mean() - c.mean())
        mc += w * c.mean()
        mv += w * v.mean()
        vc += w * w * sc / len(c)
        vv += w * w * sv / len(v)
    return d, vc + vv, mc, mv, vc, vv


def ols_estimate(strata):
    """Treatment coefficient of y ~ T + D + T:D, D the centred stratum dummies (all but the first)."""
    y = np.concatenate([np.concatenate([c, v]) for c, v in strata])
    t = np.concatenate([np.concatenate([np.zeros(len(c)), np.ones(len(v))]) for c, v in strata])
    label = np.concatenate([np.full(len(c) + len(v), k) for k, (c, v) in enumerate(strata)])
    columns = [np.ones_like(y), t]
    for k in range(1, len(strata)):
        dummy = (label == k).astype(float)
        dummy -= dummy.mean()
        columns += [dummy, t * dummy]
    fit = sm.OLS(y, np.column_stack(columns)).fit()
    return float(fit.params[1])


def draw(kind, n, rate):
    if kind == "bernoulli":
        return (rng.random(n) < rate).astype(float)
    paid = rng.random(n) < rate
    return np.where(paid, np.round(rng.lognormal(3.0, 0.8, n), 2), 0.0)


def poststrat_cases():
    cases = []
    shapes = [
        # (control sizes, variant sizes) per stratum
        ([400, 300, 200], [420, 290, 210]),
        ([1000, 800, 30, 20, 10], [990, 820, 25, 15, 12]),      # small strata pooled, pool stands alone
        ([900, 20, 10], [880, 10, 25]),                          # pool too small: joins the largest
        ([60, 55, 2000], [58, 49, 2100]),                        # one arm under 50 in one stratum
        ([5000, 3000, 1000, 500, 200, 100], [5100, 2900, 980, 510, 190, 105]),
        ([120, 80], [110, 90]),
        ([3000], [2900]),                                        # a single stratum: the plain difference
    ]
    for kind in ["bernoulli", "sample"]:
        for shape_index, (cs, vs) in enumerate(shapes):
            base = rng.uniform(0.05, 0.4, len(cs))
            lift = rng.uniform(-0.02, 0.05)
            raw = [(draw(kind, nc, b), draw(kind, nv, min(0.95, b + lift))) for nc, nv, b in zip(cs, vs, base)]
            pooled = pool(list(raw))
            d, var, mc, mv, vc, vv = poststrat(pooled, kind)
            ols = ols_estimate(pooled)
            assert abs(ols - d) <= 1e-9 * max(1, abs(d)), (ols, d)
            z = stats.norm.ppf(0.975)
            lift_value = d / mc if mc > 0 else None
            rel_se = np.sqrt(vv / mc**2 + mv**2 * vc / mc**4) if mc > 0 else None
            cases.append({
                "name": f"{kind}-{shape_index}",
                "spread": kind,
                "strata": [{"control": summary(c), "variant": summary(v)} for c, v in raw],
                "pooled_strata": len(pooled),
                "pooled_users": [[int(len(c)), int(len(v))] for c, v in pooled],
                "difference": d,
                "ols_difference": ols,
                "variance": var,
                "control_mean": mc,
                "ci": [d - z * np.sqrt(var), d + z * np.sqrt(var)],
                "p_value": float(2 * stats.norm.sf(abs(d) / np.sqrt(var))),
                "relative_lift": lift_value,
                "relative_ci": [lift_value - z * rel_se, lift_value + z * rel_se] if mc > 0 else None,
            })
    return cases


def cochran_cases():
    cases = []
    for k in [2, 3, 4, 6, 10]:
        for spread in [0.0, 0.01, 0.05]:
            v = rng.uniform(0.0001, 0.002, k)
            d = rng.normal(0.02, 1e-9 + spread, k) + rng.normal(0, np.sqrt(v))
            w = 1 / v
            mean = np.sum(w * d) / np.sum(w)
            q = float(np.sum(w * (d - mean) ** 2))
            p = float(stats.chi2.sf(q, k - 1))
            meta = combine_effects(d, v)
            assert abs(meta.q - q) <= 1e-9 * max(1, q), (meta.q, q)
            cases.append({"estimates": d.tolist(), "variances": v.tolist(), "q": q, "df": k - 1, "p_value": p,
                          "pooled": float(mean)})
    return cases


def write(name, cases):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"generator": os.path.basename(__file__), "cases": cases}, f, indent=1)
        f.write("\n")


write("poststrat.json", poststrat_cases())
write("cochran.json", cochran_cases())
