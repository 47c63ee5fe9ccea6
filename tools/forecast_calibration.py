#!/usr/bin/env python3
"""Calibration of the revenue forecast through the real binary (docs/Forecast.md).

    python3 tools/forecast_calibration.py [--abctl .build/release/abctl] [--seeds 200] [--users 8000] [--jobs 2] [--at 90]

For each seed: `abctl simulate` a two-arm experiment (3-day and 7-day trials, monthly plans only) whose
payers renew with a per-payer churn probability drawn from Beta(alpha, beta), users arriving over 60 days
and events observed for 420 days more; then `abctl forecast backtest --at DAYS --format json` (`--at`, 90 by default). The true
365-day revenue per user of each arm is computed here from the truth, not from the simulation's events:

    P(paid) * (1 - refund) * price * sum_{j=0..J-1} S(j),   S(j) = E[prod_{t=1..j} (1 - min(1, theta f^(t-1)))]

with theta ~ Beta(alpha, beta), f the tenure factor (1: the model's own assumption; S(j) = B(a, b+j)/B(a, b)),
and J the monthly payments that fall within 365 days of exposure. Refunded payers never renew, and the
refund takes back the payment, so they add nothing. P(paid) follows Simulation's Truth.Rates.probability.

Prints, per scenario and over every (seed, arm): the share of 90% intervals that cover the truth, the
median and mean absolute relative error, and the mean relative error (bias); then the same errors of each
model's own forecast (the backtest's `models`: the sBG, and the bdw where it was fitted) against the truth,
and in how many seeds the bdw was chosen (one model serves both arms): with monthly plans alone an arm's
forecast is the chosen model's own, so a seed chose the bdw when its forecasts are the bdw's, not the sBG's.
Needs numpy and scipy.
"""
import argparse, concurrent.futures, json, math, os, subprocess, sys, tempfile
import numpy as np
from scipy import integrate, special, stats

PRICE = 9.99
EXPERIMENT = """{ "id": "fc", "name": "forecast calibration", "status": "running", "start": "2026-01-01T00:00:00Z",
  "forecast": { "horizon_days": 365 },
  "variants": [
    { "key": "trial-3d", "paywall": { "offering": "chorus_plus", "trial_days": 3, "discount_framing": "none", "copy": { "strategy": "static", "text": "x" } } },
    { "key": "trial-7d", "paywall": { "offering": "chorus_plus", "trial_days": 7, "discount_framing": "none", "copy": { "strategy": "static", "text": "x" } } } ] }"""
PRODUCTS = """{ "currency": "USD", "offerings": { "chorus_plus": { "plans": {
  "monthly": { "product_id": "chorus.plus.monthly", "price": 9.99, "period": "P1M" },
  "annual": { "product_id": "chorus.plus.annual", "price": 59.99, "period": "P1Y" } } } } }"""
RATES = {"trial_start": 0.35, "day0_cancel": 0.25, "later_cancel": 0.15, "convert": 0.9, "direct_purchase": 0.01, "refund": 0.03}
SCENARIOS = {
    # The model's own assumptions: a beta distribution of churn probability, constant over tenure.
    "model": {"trial-3d": (1.5, 6.0, 1.0), "trial-7d": (1.0, 3.0, 1.0)},
    # A shape the model does not assume: each payer's churn probability rises 30% a month.
    "misspecified": {"trial-3d": (1.5, 6.0, 1.3), "trial-7d": (1.0, 3.0, 1.3)},
}


def paid_probability(trial_days):
    r = RATES
    later = r["later_cancel"] if trial_days * 24 > 24 else 0
    to_paid = (1 - r["day0_cancel"]) * (1 - later) * r["convert"]
    return r["trial_start"] * to_paid + (1 - r["trial_start"]) * r["direct_purchase"]


def survival(a, b, f, j):
    if f == 1:
        return math.exp(special.betaln(a, b + j) - special.betaln(a, b))
    integrand = lambda th: stats.beta.pdf(th, a, b) * math.prod(1 - min(1.0, th * f ** t) for t in range(j))
    return integrate.quad(integrand, 0, 1, limit=200, points=[min(1, 1 / f ** t) for t in range(j) if 1 / f ** t < 1])[0]


def truth(trial_days, a, b, f):
    # Trial payers pay at the trial's end (plus 1-30 minutes); direct buyers within the hour.
    r = RATES
    starts = r["trial_start"]
    trial_payers = starts * (1 - r["day0_cancel"]) * (1 - (r["later_cancel"] if trial_days > 1 else 0)) * r["convert"]
    direct_payers = (1 - starts) * r["direct_purchase"]
    def payments(first_day):
        J = int((365 - first_day) // 30) + 1
        return math.fsum(survival(a, b, f, j) for j in range(J))
    expected = trial_payers * payments(trial_days + 0.01) + direct_payers * payments(0.02)
    return (1 - r["refund"]) * PRICE * expected


def run_seed(args, scenario, seed):
    arms = SCENARIOS[scenario]
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(d + "/exp")
        open(d + "/exp/fc.json", "w").write(EXPERIMENT)
        open(d + "/exp/products.json", "w").write(PRODUCTS)
        t = {"default": dict(RATES, annual_share=0), "experiments": {"fc": {
            k: {"renewal_churn": {"alpha": a, "beta": b, "tenure_factor": f}} for k, (a, b, f) in arms.items()}}}
        json.dump(t, open(d + "/truth.json", "w"))
        subprocess.run([args.abctl, "simulate", "--users", str(args.users), "--days", "60", "--tail-days", "420", "--seed", str(seed),
                        "--truth", d + "/truth.json", "--experiments", d + "/exp", "--db", d + "/fc.sqlite"], check=True, capture_output=True)
        out = subprocess.run([args.abctl, "forecast", "backtest", "fc", "--at", str(args.at), "--format", "json", "--experiments", d + "/exp",
                              "--db", d + "/fc.sqlite"], check=True, capture_output=True, env=dict(os.environ, ABCTL_NOW="2027-03-01T00:00:00Z"))
        return json.loads(out.stdout)[0]["arms"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--abctl", default=".build/release/abctl")
    p.add_argument("--seeds", type=int, default=200)
    p.add_argument("--users", type=int, default=8000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--at", type=int, default=90, help="days after the start the forecast is made")
    p.add_argument("--scenario", choices=list(SCENARIOS) + ["all"], default="all")
    args = p.parse_args()
    for scenario in (SCENARIOS if args.scenario == "all" else [args.scenario]):
        arms = SCENARIOS[scenario]
        true = {k: truth(3 if k == "trial-3d" else 7, *v) for k, v in arms.items()}
        covered, errors, nulls, bdw_chosen = 0, [], 0, 0
        by_model = {"sbg": [], "bdw": []}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for done, result in enumerate(pool.map(lambda s: run_seed(args, scenario, s), range(1, args.seeds + 1)), 1):
                bdw_chosen += any("bdw" in (arm.get("models") or {}) and arm["forecast"] == arm["models"]["bdw"]["forecast"] != arm["models"]["sbg"]["forecast"]
                                  for arm in result.values() if arm["forecast"] is not None)
                for k, arm in result.items():
                    if arm["forecast"] is None:
                        nulls += 1
                        continue
                    lo, hi = arm["ci"]
                    covered += lo <= true[k] <= hi
                    errors.append(arm["forecast"] / true[k] - 1)
                    for name, m in (arm.get("models") or {}).items():
                        by_model.setdefault(name, []).append(m["forecast"] / true[k] - 1)
                if done % 25 == 0 and done < args.seeds:   # progress, for a long run
                    print(f"  {scenario}: after {done} seeds, {covered} of {len(errors)} covered, bdw chosen in {bdw_chosen}", file=sys.stderr, flush=True)
        e = np.array(errors)
        print(f"{scenario}: true 365-day revenue per user " + ", ".join(f"{k} {v:.4f}" for k, v in true.items()))
        print(f"  {len(e)} forecasts at day {args.at} ({args.seeds} seeds x 2 arms, {args.users} users a seed; {nulls} null)")
        print(f"  90% interval covers the truth: {covered / len(e):.3f} ({covered} of {len(e)})")
        print(f"  bdw chosen in {bdw_chosen} of {args.seeds} seeds ({bdw_chosen / args.seeds:.3f})")
        print(f"  median |error| {np.median(np.abs(e)):.4f}, mean |error| {np.mean(np.abs(e)):.4f}, mean error (bias) {np.mean(e):+.4f}")
        for name, errs in by_model.items():
            if errs:
                m = np.array(errs)
                print(f"  {name} alone ({len(m)} forecasts): median |error| {np.median(np.abs(m)):.4f}, mean error (bias) {np.mean(m):+.4f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
