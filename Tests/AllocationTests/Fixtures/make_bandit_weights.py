"""Reference weights for bandit periods (docs/Bandits.md), for Tests/AllocationTests.

Per case: arms' (users, rewards), which arms run, min_share. The chance that each running
arm has the highest rate under Beta(1 + x, 1 + n - x) is computed two ways: by numerical
integration (scipy.integrate.quad of pdf_i * prod_j cdf_j) and by a seeded numpy Monte Carlo
of the same posteriors (2,000,000 draws); then the floor rule: arms below min_share are set to
it and the others share the rest in proportion, repeated until none is below; stopped arms 0.

Run: .venv/bin/python Tests/AllocationTests/Fixtures/make_bandit_weights.py
"""
import json
import os

import numpy as np
from scipy import integrate, stats

CASES = [
    {"users": [200, 200, 200, 200, 200], "rewards": [30, 30, 30, 30, 30], "running": [True] * 5, "min_share": 0.05},
    {"users": [400, 410, 395, 402, 398], "rewards": [40, 52, 38, 47, 61], "running": [True] * 5, "min_share": 0.05},
    {"users": [1000, 1000, 1000], "rewards": [100, 130, 90], "running": [True] * 3, "min_share": 0.1},
    {"users": [250, 260, 240, 255], "rewards": [20, 45, 22, 21], "running": [True, True, False, True], "min_share": 0.05},
    {"users": [5000, 5100, 4900, 5050, 4950, 5000], "rewards": [500, 540, 505, 498, 520, 515], "running": [True] * 6, "min_share": 0.02},
    {"users": [300, 300], "rewards": [60, 45], "running": [True, True], "min_share": 0.2},
    {"users": [800, 790, 810, 805], "rewards": [0, 3, 1, 2], "running": [True] * 4, "min_share": 0.05},
]


def chance_best_quad(users, rewards):
    post = [stats.beta(1 + x, 1 + n - x) for n, x in zip(users, rewards)]
    out = []
    for i, p in enumerate(post):
        others = [q for j, q in enumerate(post) if j != i]
        lo, hi = p.ppf(1e-15), p.isf(1e-15)
        f = lambda t: p.pdf(t) * np.prod([q.cdf(t) for q in others])
        pts = list(np.linspace(lo, hi, 41))
        v, _ = integrate.quad(f, lo, hi, points=pts[1:-1], limit=500, epsabs=1e-12, epsrel=1e-10)
        out.append(v)
    return out


def chance_best_mc(users, rewards, rng, draws=2_000_000):
    samples = np.stack([rng.beta(1 + x, 1 + n - x, size=draws) for n, x in zip(users, rewards)])
    best = np.argmax(samples, axis=0)
    return [float(np.mean(best == i)) for i in range(len(users))]


def floor(p, min_share):
    share = min(min_share, 1 / len(p))
    fixed = [False] * len(p)
    w = list(p)
    while True:
        free = [i for i in range(len(p)) if not fixed[i]]
        rest = 1 - (len(p) - len(free)) * share
        mass = sum(p[i] for i in free)
        for i in free:
            w[i] = rest * p[i] / mass if mass > 0 else rest / len(free)
        below = [i for i in free if w[i] < share]
        if not below:
            return w
        for i in below:
            fixed[i] = True
            w[i] = share


def main():
    rng = np.random.default_rng(20261204)
    out = []
    for case in CASES:
        live = [i for i, r in enumerate(case["running"]) if r]
        users = [case["users"][i] for i in live]
        rewards = [case["rewards"][i] for i in live]
        quad = chance_best_quad(users, rewards)
        mc = chance_best_mc(users, rewards, rng)
        weights = [0.0] * len(case["users"])
        for k, w in zip(live, floor(quad, case["min_share"])):
            weights[k] = w
        chance_quad = [0.0] * len(case["users"])
        chance_mc = [0.0] * len(case["users"])
        for k, i in enumerate(live):
            chance_quad[i], chance_mc[i] = quad[k], mc[k]
        out.append(dict(case, chance_best_quad=chance_quad, chance_best_monte_carlo=chance_mc, weights=weights))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bandit_weights.json")
    with open(path, "w") as f:
        json.dump({"generated_by": "make_bandit_weights.py (scipy quad and a numpy Monte Carlo, seed 20261204)", "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
