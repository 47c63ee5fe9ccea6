#!/usr/bin/env python3
"""normal_bayes.json: the normal-approximation chance to win and expected loss for revenue.

    python3 make_normal_bayes.py

Per case: two samples' count, sum and sum of squares (exact sums, math.fsum). d = mean_v - mean_c and
s = sqrt(var_v/n_v + var_c/n_c) with numpy's sample variances (ddof=1); chance_to_win = Phi(d/s) and
expected_loss = s*phi(d/s) - d*Phi(-d/s), evaluated with mpmath at 50 digits, and cross-checked against
scipy.integrate.quad of E[max(-D, 0)] for D ~ Normal(d, s^2) and scipy.stats.norm.sf(0, d, s).
Needs numpy, scipy, mpmath.
"""
import json, math, os
import mpmath
import numpy as np
from scipy import integrate, stats

mpmath.mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261202)

def sample(n, shift):
    kind = rng.choice(4, size=n, p=[0.7, 0.15, 0.1, 0.05])
    x = np.array([0.0, 9.99, 59.99, 0.0])[kind]
    x[kind == 3] = np.round(rng.lognormal(4, 1, size=(kind == 3).sum()), 2)
    return x * shift

cases = []
while len(cases) < 260:
    nc, nv = int(rng.integers(2, 3000)), int(rng.integers(2, 3000))
    xc = sample(nc, 1.0)
    xv = sample(nv, float(rng.choice([1.0, rng.uniform(0.3, 3.0)])))
    if len(cases) % 10 == 0:
        xv = xv + float(rng.uniform(-20, 20))   # far tails: |d/s| up to dozens
    vc, vv = xc.var(ddof=1), xv.var(ddof=1)
    if vc == 0 and vv == 0:
        continue
    d = xv.mean() - xc.mean()
    s = math.sqrt(vv / nv + vc / nc)
    md, ms = mpmath.mpf(d), mpmath.mpf(s)
    z = md / ms
    chance = mpmath.ncdf(z)
    loss = ms * mpmath.npdf(z) - md * mpmath.ncdf(-z)
    if abs(z) < 8:
        q = integrate.quad(lambda x: -x * stats.norm.pdf(x, loc=d, scale=s), d - 40 * s, 0, epsabs=0, epsrel=1e-12, limit=500)[0] if d < 40 * s else 0.0
        assert abs(q - float(loss)) <= 1e-9 * max(abs(float(loss)), 1e-12), (q, loss)
        assert abs(stats.norm.sf(0, loc=d, scale=s) - float(chance)) < 1e-12
    cases.append({"control": [nc, math.fsum(xc), math.fsum(xc * xc)], "variant": [nv, math.fsum(xv), math.fsum(xv * xv)],
                  "difference": d, "standard_error": s, "chance_to_win": float(chance), "expected_loss": float(loss)})

with open(os.path.join(HERE, "normal_bayes.json"), "w") as f:
    json.dump({"generator": "make_normal_bayes.py", "cases": cases}, f, indent=0)
print(len(cases), "cases")
