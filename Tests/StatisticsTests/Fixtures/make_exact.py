"""One-sided exact tests of offer mismatches (the store did not grant the trial an arm tested)
against scipy: writes exact.json.

  binomial: scipy.stats.binomtest(k, n, p, alternative="greater").pvalue
  fisher:   scipy.stats.fisher_exact([[a, n1 - a], [c, n2 - c]], alternative="greater").pvalue

Run: .venv/bin/python Tests/StatisticsTests/Fixtures/make_exact.py
"""
import json
import os
import random

from scipy import stats

rng = random.Random(20261203)
cases = []
for _ in range(300):
    n = rng.choice([1, 2, 5, 10, 50, 100, 500, 1000, 5000, 20000])
    p = rng.choice([0.02, 0.02, 0.02, 0.01, 0.05, 0.3])
    k = min(n, max(0, int(rng.gauss(n * p * rng.choice([1, 1.2, 1.5, 2, 3]), (n * p + 1) ** 0.5))))
    cases.append({"kind": "binomial", "k": k, "n": n, "p": p,
                  "p_value": float(stats.binomtest(k, n, p, alternative="greater").pvalue)})
for _ in range(300):
    n1 = rng.choice([1, 3, 10, 50, 100, 500, 2000, 5000])
    n2 = rng.choice([1, 3, 10, 50, 100, 500, 2000, 5000])
    share = rng.choice([0.01, 0.02, 0.05, 0.2])
    a = min(n1, max(0, int(rng.gauss(n1 * share * rng.choice([1, 1.5, 2, 3]), (n1 * share + 1) ** 0.5))))
    c = min(n2, max(0, int(rng.gauss(n2 * share, (n2 * share + 1) ** 0.5))))
    cases.append({"kind": "fisher", "a": a, "n1": n1, "c": c, "n2": n2,
                  "p_value": float(stats.fisher_exact([[a, n1 - a], [c, n2 - c]], alternative="greater").pvalue)})

with open(os.path.join(os.path.dirname(__file__), "exact.json"), "w") as f:
    json.dump({"cases": cases}, f)
