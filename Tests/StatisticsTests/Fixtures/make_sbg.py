#!/usr/bin/env python3
"""sbg.json: the shifted-beta-geometric renewal model of the forecast (Fader and Hardie 2007).

    python3 make_sbg.py

Per case: payers of one plan period as counts of (payments k, churned or censored). A churned payer
contributes B(a+1, b+k-1)/B(a, b) to the likelihood, a censored one S(k-1) = B(a, b+k-1)/B(a, b),
written with scipy.special.betaln. alpha and beta maximise it with a + b <= 1e4, found by
scipy.optimize (L-BFGS-B over logit(a/(a+b)) and log(a+b) from several starts, then polished: on the
cap by a bounded scalar search, inside it by BFGS over (log a, log b)). Also per case: the expected
further payments sum_{j=k+1..J} S(j-1)/S(k-1) for some (k, J), and the revenue per user of a small
forecast (non-payers, churned payers' revenue, censored payers' revenue plus price times further payments).
Needs numpy, scipy.
"""
import json, math, os
import numpy as np
from scipy import optimize, special

HERE = os.path.dirname(os.path.abspath(__file__))
CAP = 1e4
rng = np.random.default_rng(20070115)


def negll(a, b, churned, censored):
    base = special.betaln(a, b)
    ll = 0.0
    for k, n in churned.items():
        ll += n * (special.betaln(a + 1, b + k - 1) - base)
    for k, n in censored.items():
        ll += n * (special.betaln(a, b + k - 1) - base)
    return -ll


def fit(churned, censored):
    """The best of the interior maximum (if any lies inside the cap) and the maximum on a + b = CAP."""
    candidates = []
    for la, lb in ((0.0, 1.0), (1.0, 4.0)):
        r = optimize.minimize(lambda v: negll(math.exp(v[0]), math.exp(v[1]), churned, censored), [la, lb],
                              method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})
        r = optimize.minimize(lambda v: negll(math.exp(v[0]), math.exp(v[1]), churned, censored), r.x,
                              method="BFGS", options={"gtol": 1e-10, "maxiter": 10000})
        a, b = math.exp(r.x[0]), math.exp(r.x[1])
        if a + b <= CAP:
            candidates.append((negll(a, b, churned, censored), a, b, False))
    g = lambda t: negll(special.expit(t) * CAP, (1 - special.expit(t)) * CAP, churned, censored)
    r = optimize.minimize_scalar(g, bracket=(-6.0, 0.0), method="brent", tol=1e-14)
    mu = special.expit(r.x)
    candidates.append((g(r.x), mu * CAP, CAP - mu * CAP, True))
    best = min(candidates)
    return best[1], best[2], best[3]


def survival(a, b, t):
    return math.exp(special.betaln(a, b + t) - special.betaln(a, b))


def further(a, b, k, J):
    return math.fsum(survival(a, b, j - 1) / survival(a, b, k - 1) for j in range(k + 1, J + 1))


def simulate(n, draw_theta, opportunities):
    churned, censored = {}, {}
    for _ in range(n):
        theta = draw_theta()
        m = int(rng.integers(1, opportunities + 1))      # payments the observation window allows
        t = int(rng.geometric(theta))                    # payments this payer will make
        if t < m or (t == m and rng.random() < 0.5):     # churn seen (sometimes right at the window's end)
            churned[t] = churned.get(t, 0) + 1
        else:
            censored[m] = censored.get(m, 0) + 1
    return churned, censored


cases = []
while len(cases) < 32:
    i = len(cases)
    n = int(rng.choice([30, 200, 1000, 5000]))
    if i % 4 == 3:   # no heterogeneity: one churn probability for everyone (often fits on the cap)
        p = float(rng.uniform(0.05, 0.4))
        churned, censored = simulate(n, lambda: p, int(rng.integers(3, 14)))
    else:
        a, b = float(rng.uniform(0.3, 5)), float(rng.uniform(0.5, 12))
        churned, censored = simulate(n, lambda: rng.beta(a, b), int(rng.integers(2, 14)))
    if not churned or all(k == 1 for k in list(churned) + list(censored)):
        continue
    alpha, beta, capped = fit(churned, censored)
    # The fit must be a maximum: no nearby point is better.
    best = negll(alpha, beta, churned, censored)
    for da, db in ((1.001, 1), (0.999, 1), (1, 1.001), (1, 0.999)):
        if alpha * da + beta * db <= CAP:
            assert negll(alpha * da, beta * db, churned, censored) >= best - 1e-9, (i, alpha, beta)
    further_cases = []
    for k, J in ((1, 13), (2, 13), (5, 13), (3, 4), (1, 53), (12, 13), (4, 4)):
        further_cases.append([k, J, further(alpha, beta, k, J)])
    price, nonpayers = 9.99, int(rng.integers(0, 20 * n))
    total = 0.0
    users = nonpayers
    for k, c in churned.items():
        total += c * k * price; users += c
    for k, c in censored.items():
        total += c * (k * price + price * further(alpha, beta, k, 13)); users += c
    cases.append({"churned": sorted([k, c] for k, c in churned.items()), "censored": sorted([k, c] for k, c in censored.items()),
                  "alpha": alpha, "beta": beta, "capped": capped, "further": further_cases,
                  "forecast": {"nonpayers": nonpayers, "price": price, "due": 13, "revenue_per_user": total / users}})

with open(os.path.join(HERE, "sbg.json"), "w") as f:
    json.dump({"cap": CAP, "cases": cases}, f, indent=1)
print(len(cases), "cases,", sum(c["capped"] for c in cases), "on the cap")
