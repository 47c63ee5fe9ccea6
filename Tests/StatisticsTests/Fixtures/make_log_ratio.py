#!/usr/bin/env python3
"""Relative-lift intervals on the log scale, and Bayesian figures in a metric's good direction.

Run from anywhere:  python3 Tests/StatisticsTests/Fixtures/make_log_ratio.py   (needs numpy, scipy, statsmodels)
Deterministic: it reads the cases make_fixtures.py wrote and rewrites only these fields.

  comparison.json  "lift", "lift_ci": the log-ratio (Katz) interval of the rate ratio from statsmodels
                   confint_proportions_2indep(count_v, n_v, count_c, n_c, compare="ratio", method="log"),
                   minus 1; null when either arm has no successes (statsmodels answers inf or nan there).
  welch.json       "lift": mean_v / mean_c - 1 when the control's mean is positive, else null;
                   "lift_ci": the delta method on the log of the ratio of means,
                   exp(ln(m_v/m_c) +- z sqrt(v_c/m_c^2 + v_v/m_v^2)) - 1 with v = s^2/n, when both means are
                   positive, else null (no library implements it; the formula written out here).
  direction.json   for a lower-is-better rate (cancels, refunds): chance_to_win = P(p_v < p_c) and
                   expected_loss = E[max(p_v - p_c, 0)] under Beta(1 + x, 1 + n - x) posteriors, from
                   bayes.json's exact figures by 1 - P(p_v > p_c) and E[V - C] + E[(C - V)+], each pair of
                   20 to 200,000 users, neither at 0% or 100%, cross-checked by scipy.integrate.quad (QUADPACK) of single integrals:
                   P = int f_c(t) P(V < t) dt, E[(V - C)+] = int f_c(t) (m_v P(V+ > t) - t P(V > t)) dt.
"""
import json
import math
import os
import warnings

import numpy as np
from scipy import integrate, stats
from statsmodels.stats.proportion import confint_proportions_2indep

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)["cases"]


def write(name, cases):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {len(cases)} cases")


def comparison():
    cases = load("comparison.json")
    for c in cases:
        x1, n1, x2, n2 = c["control_count"], c["control_total"], c["variant_count"], c["variant_total"]
        if x1 > 0 and x2 > 0:
            lo, hi = confint_proportions_2indep(x2, n2, x1, n1, compare="ratio", method="log", alpha=c["alpha"])
            c["lift"], c["lift_ci"] = float((x2 / n2) / (x1 / n1) - 1), [float(lo - 1), float(hi - 1)]
        else:
            c["lift"], c["lift_ci"] = None, None
    write("comparison.json", cases)


def welch():
    cases = load("welch.json")
    for c in cases:
        (n1, s1, ss1), (n2, s2, ss2) = c["control"], c["variant"]
        m1, m2 = s1 / n1, s2 / n2
        v1 = (ss1 - s1 * s1 / n1) / (n1 - 1) / n1
        v2 = (ss2 - s2 * s2 / n2) / (n2 - 1) / n2
        c["lift"] = float(m2 / m1 - 1) if m1 > 0 else None
        if m1 > 0 and m2 > 0:
            z = stats.norm.isf(c["alpha"] / 2)
            se = math.sqrt(max(v1, 0) / m1**2 + max(v2, 0) / m2**2)
            c["lift_ci"] = [float(math.exp(math.log(m2 / m1) - z * se) - 1), float(math.exp(math.log(m2 / m1) + z * se) - 1)]
        else:
            c["lift_ci"] = None
    write("welch.json", cases)


def direction():
    """From bayes.json's exact figures (Evan Miller's closed form) by two identities of continuous posteriors:
    P(p_v < p_c) = 1 - P(p_v > p_c) and E[(V - C)+] = E[V - C] + E[(C - V)+]; cross-checked by QUADPACK."""
    out, checked = [], 0
    for c in load("bayes.json"):
        x1, n1, x2, n2 = c["control_count"], c["control_total"], c["variant_count"], c["variant_total"]
        m1, m2 = (1 + x1) / (2 + n1), (1 + x2) / (2 + n2)
        chance = 1.0 - c["chance_to_win"]
        loss = max(0.0, (m2 - m1) + c["expected_loss"])
        if max(n1, n2) <= 200_000 and min(n1, n2) >= 20 and 0 < x1 < n1 and 0 < x2 < n2:
            C, V = stats.beta(1 + x1, 1 + n1 - x1), stats.beta(1 + x2, 1 + n2 - x2)
            Vplus = stats.beta(2 + x2, 1 + n2 - x2)
            pts = sorted({min(max(d.mean() + k * d.std(), 0.0), 1.0) for d in (C, V) for k in (-12, -8, -4, -2, 0, 2, 4, 8, 12)})
            q_chance, _ = integrate.quad(lambda t: C.pdf(t) * V.cdf(t), 0, 1, points=pts, epsabs=1e-14, limit=2000)
            q_loss, _ = integrate.quad(lambda t: C.pdf(t) * (V.mean() * Vplus.sf(t) - t * V.sf(t)), 0, 1, points=pts, epsabs=1e-15, limit=2000)
            assert abs(q_chance - chance) < 1e-6 and abs(q_loss - loss) < 1e-6, (c, q_chance, chance, q_loss, loss)
            checked += 1
        out.append({"control_count": x1, "control_total": n1, "variant_count": x2, "variant_total": n2,
                    "chance_to_win": chance, "expected_loss": loss})
    assert checked >= 40, checked
    write("direction.json", out)


if __name__ == "__main__":
    import sys
    for name, make in {"comparison": comparison, "welch": welch, "direction": direction}.items():
        if len(sys.argv) == 1 or name in sys.argv[1:]:
            make()
