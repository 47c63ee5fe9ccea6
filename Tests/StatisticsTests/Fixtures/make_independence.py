"""Pearson's chi-square test of independence (the report's `identity_imbalance`: do arms differ
in their share of people with merged ids?) against scipy: writes independence.json.

  scipy.stats.chi2_contingency(table, correction=False): statistic, dof, pvalue

Tables are arms × (merged, not merged) and a few wider ones, from balanced to far apart.
Run: .venv/bin/python Tests/StatisticsTests/Fixtures/make_independence.py
"""
import json
import os
import random

from scipy import stats

rng = random.Random(20261204)
cases = []
for _ in range(200):
    arms = rng.choice([2, 2, 3, 4, 5])
    columns = rng.choice([2, 2, 2, 3])
    n = rng.choice([20, 100, 1000, 10000, 100000])
    base = [rng.uniform(0.05, 0.6) for _ in range(columns - 1)]
    table = []
    for _ in range(arms):
        shift = rng.choice([1, 1, 1.05, 1.2, 1.5])
        shares = [min(0.9, b * shift) for b in base]
        rest = max(0.05, 1 - sum(shares))
        weights = shares + [rest]
        total = sum(weights)
        counts = [int(round(n * w / total * rng.uniform(0.97, 1.03))) for w in weights]
        table.append([max(1, c) for c in counts])
    result = stats.chi2_contingency(table, correction=False)
    cases.append({"table": table, "statistic": float(result.statistic), "dof": int(result.dof),
                  "p_value": float(result.pvalue)})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "independence.json")
with open(path, "w") as f:
    json.dump({"cases": cases}, f)
