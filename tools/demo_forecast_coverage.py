#!/usr/bin/env python3
"""How close the demo's forecasts come to the truth, over seeds (docs/Forecast.md).

    python3 tools/demo_forecast_coverage.py --abctl .build/release/abctl --seeds 1,2,3,4,5,6,7,8

For each seed: `abctl demo --seed S` on a copy of Experiments/ (the shipped story: placements, the
safeguard stop, annual and monthly plans), then, for every arm of every experiment, the report's 365-day
forecast against the truth's revenue per user, computed from the truth file as DemoStoryTests does:
trial payers pay at the trial's end, direct buyers at once, a refunded payer pays nothing, and monthly
payers renew every 30 days with S(t) = prod_{i<t} (beta + i) / (alpha + beta + i) (renewal_churn).

Prints one line per (seed, arm), then the share of 90% intervals covering the truth and the mean
relative error, over all and per arm. Needs only the standard library.
"""
import argparse, json, math, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def true_revenue_per_user(r, trial_days, monthly, annual):
    def survival(t):
        churn = r.get("renewal_churn")
        if not churn:
            return r["renewal"] ** t
        p = 1.0
        for i in range(t):
            p *= (churn["beta"] + i) / (churn["alpha"] + churn["beta"] + i)
        return p

    def payer(first_day):
        months = sum(survival(t) for t in range(math.ceil((365 - first_day) / 30)))
        return (1 - r["refund"]) * (r["annual_share"] * annual + (1 - r["annual_share"]) * monthly * months)

    paid_after_trial = (1 - r["day0_cancel"]) * (1 - r["later_cancel"]) * r["convert"]
    starts = r["trial_start"] if trial_days > 0 else 0
    return starts * paid_after_trial * payer(trial_days + 0.01) + (1 - starts) * r["direct_purchase"] * payer(0.01)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--abctl", default=os.path.join(ROOT, ".build/release/abctl"))
    parser.add_argument("--seeds", default="1,2,3,4,5,6,7,8")
    args = parser.parse_args()
    truth = json.load(open(f"{ROOT}/Experiments/simulation/chorus-plus-truth.json"))
    plans = json.load(open(f"{ROOT}/Experiments/products.json"))["offerings"]["chorus_plus"]["plans"]
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        folder = tempfile.mkdtemp(prefix="abctl-demo-coverage")
        try:
            shutil.copytree(f"{ROOT}/Experiments", f"{folder}/Experiments")
            run = subprocess.run([args.abctl, "demo", "--seed", str(seed)], cwd=folder, capture_output=True, text=True,
                                 env={**os.environ, "ABCTL_NOW": ""})
            if run.returncode != 0:
                sys.exit(run.stderr)
            for experiment, arms in truth["experiments"].items():
                report = json.load(open(f"{folder}/Reports/{experiment}.json"))
                trial_days = {v["key"]: (v.get("paywall") or {}).get("trial_days", 0)
                              for v in json.load(open(f"{folder}/Experiments/{experiment}.json"))["variants"]}
                for arm, own in arms.items():
                    expected = true_revenue_per_user({**truth["default"], **own}, trial_days[arm],
                                                     plans["monthly"]["price"], plans["annual"]["price"])
                    forecast = report["forecast"][arm]
                    low, high = forecast["ci"]
                    point = forecast["revenue_per_user"]
                    rows.append((experiment, arm, low <= expected <= high, point / expected - 1))
                    print(f"seed {seed} {experiment:24} {arm:12} truth {expected:6.2f} forecast {point:6.2f} "
                          f"[{low:6.2f}, {high:6.2f}] {'covers' if low <= expected <= high else 'misses'} {point / expected - 1:+.3f}",
                          flush=True)
        finally:
            shutil.rmtree(folder)

    def summary(label, selected):
        covered = sum(1 for r in selected if r[2])
        bias = sum(r[3] for r in selected) / len(selected)
        print(f"{label}: {len(selected)} forecasts, 90% interval covers {covered} ({covered / len(selected):.1%}), mean error {bias:+.1%}")

    summary("all arms", rows)
    for key in dict.fromkeys((r[0], r[1]) for r in rows):
        summary(f"{key[0]} {key[1]}", [r for r in rows if (r[0], r[1]) == key])


if __name__ == "__main__":
    main()
