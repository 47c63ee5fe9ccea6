#!/usr/bin/env python3
"""short_tenure.json: the sBG and the bdw fitted where payers show at most two renewals, as a forecast
made 90 days into an experiment sees a monthly plan (docs/Forecast.md).

    python3 make_short_tenure.py

Per case: two arms of payers whose first payments spread over 87 days before the cut, so each has had
at most two renewals (k = 1, 2 or 3 payments seen); churn per payer θ ~ Beta(a, b), constant over tenure
(the sBG's own assumption), and 3% of payers refunded (churned after one payment). Fits by scipy.optimize
(make_bdw.py's), independently of abctl: each arm's sBG over (log a, log b) and the bdw with one c shared by the arms over
(log a_i, log b_i, log c), each by BFGS from several starts, the best polished by Nelder-Mead. Per case
and arm the sBG's a, b and maximised log-likelihood (a fit beyond a + b = 1e4 is left out: the model's
cap); per case the bdw's maximised log-likelihood and the likelihood-ratio statistic. With two observed
churn rates and two parameters the sBG's maximum is interior whenever the second rate is the lower, and
the likelihood bends there, so a fit that only follows the gradient can stop short of it.
Needs numpy, scipy.
"""
import json, math, os
import numpy as np
from scipy import special, stats

from make_bdw import best_fit, safe   # the same optimiser as bdw.json's

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261206)
CAP = 1e4


def log_s(a, b, c, t):
    return special.betaln(a, b + np.asarray(t, dtype=float) ** c) - special.betaln(a, b)


def loglik(a, b, c, churned, censored):
    ll = 0.0
    for k, n in churned.items():
        s0, s1 = log_s(a, b, c, k - 1), log_s(a, b, c, k)
        ll += n * (s0 + math.log(-math.expm1(s1 - s0)))
    for k, n in censored.items():
        ll += n * log_s(a, b, c, k - 1)
    return float(ll)


def simulate(a, b, payers):
    churned, censored = {}, {}
    for theta in rng.beta(a, b, size=payers):
        seen = 1 + int(rng.uniform(0, 87) // 30)      # payments that have fallen due by the cut
        if rng.random() < 0.03:
            churned[1] = churned.get(1, 0) + 1
            continue
        k = 1
        while True:
            if k >= seen:
                censored[k] = censored.get(k, 0) + 1
                break
            if rng.random() < theta:
                churned[k] = churned.get(k, 0) + 1
                break
            k += 1
    return churned, censored


def main():
    cases = []
    while len(cases) < 16:
        arms = [simulate(1.5, 6.0, int(rng.integers(500, 900))), simulate(1.0, 3.0, int(rng.integers(500, 900)))]
        sbg = []
        for ch, ce in arms:
            f = safe(lambda x: -loglik(math.exp(x[0]), math.exp(x[1]), 1.0, ch, ce))
            r = best_fit(f, [[0.0, 0.0], [0.0, 1.5], [-0.5, 0.5], [1.0, 2.5]])
            a, b = math.exp(r.x[0]), math.exp(r.x[1])
            sbg.append({"alpha": a, "beta": b, "loglik": -r.fun})
        if any(s["alpha"] + s["beta"] > CAP for s in sbg):
            continue   # on the cap: make_sbg.py's cases cover it
        def joint(x):
            c = math.exp(x[-1])
            return -sum(loglik(math.exp(x[2 * i]), math.exp(x[2 * i + 1]), c, ch, ce) for i, (ch, ce) in enumerate(arms))
        x0 = sum(([math.log(s["alpha"]), math.log(s["beta"])] for s in sbg), [])
        r = best_fit(safe(joint), [x0 + [lc] for lc in (0.0, 0.3, -0.3)])
        sbg_ll = sum(s["loglik"] for s in sbg)
        bdw_ll = max(-r.fun, sbg_ll)     # c = 1 is the sBG: the bdw's maximum is never below it
        stat = 2 * (bdw_ll - sbg_ll)
        cases.append({
            "arms": [{"churned": {str(k): n for k, n in sorted(ch.items())}, "censored": {str(k): n for k, n in sorted(ce.items())}}
                     for ch, ce in arms],
            "sbg": sbg, "bdw_loglik": bdw_ll, "statistic": stat, "p_value": float(stats.chi2.sf(stat, 1)),
        })
    with open(os.path.join(HERE, "short_tenure.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
