#!/usr/bin/env python3
"""Fixtures for revenue decisions, computed with numpy and scipy independently of abctl.

    python3 make_revenue_fixtures.py     # writes capping.json and horizons.json here (fixed seed)

capping.json   per case: two variants' per-user net revenues (the non-zero values, and how many users,
               zeros implied), a cap ({"percentile": p} or {"absolute": x}); expected: the cap
               (numpy.quantile, default "linear" method, of the strictly positive values pooled over both
               variants) and scipy.stats.ttest_ind(equal_var=False) on the capped values: mean difference,
               p-value, 95% confidence_interval().
horizons.json  per case: users' facts (seconds since 1970: first exposure, trial start, first paid, first
               converted, first cancel, refund, revenue entries as [seconds after exposure, amount]), both
               variants' trial days, the Day-0 window, the as-of time and a horizon N; expected per metric
               NAME_dN (docs/Reports.md) and per variant: numerator and denominator (and the revenue sum),
               counting users first exposed at least N days before the as-of time and their events in
               [first exposure, first exposure + N days), with numpy boolean arrays; Day-0 cancels among
               trial starters whose Day-0 window ends inside those N days; cancels during the trial among
               trial starters whose trial length is known (the arm's trial_days, left out where it is 0).
Needs numpy and scipy (see ../oracle/requirements.txt).
"""
import json, os
import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261201)
DAY = 86400

def revenues(n):
    """n users' net revenue: mostly zero; monthly and annual payers, renewals, refunds, odd amounts and whales."""
    kind = rng.choice(6, size=n, p=[0.72, 0.1, 0.08, 0.04, 0.04, 0.02])
    price = np.array([0.0, 9.99, 59.99, 0.0, 0.0, 0.0])[kind]
    price[kind == 3] = 9.99 * rng.integers(2, 13, size=(kind == 3).sum())           # renewals
    price[kind == 4] = -rng.choice([9.99, 59.99], size=(kind == 4).sum()) * rng.choice([0, 1], size=(kind == 4).sum())  # refunds
    price[kind == 5] = np.round(rng.lognormal(5, 1.2, size=(kind == 5).sum()), 2)  # whales
    return price

def capping_cases(count):
    cases = []
    while len(cases) < count:
        nc, nv = int(rng.integers(3, 400)), int(rng.integers(3, 400))
        xc, xv = revenues(nc), revenues(nv)
        if rng.random() < 0.15:
            xv = xv * rng.uniform(1.1, 3)   # a real difference now and then
        pooled = np.concatenate([xc, xv])
        positive = pooled[pooled > 0]
        if len(positive) == 0 or (xc.var() == 0 and xv.var() == 0):
            continue
        if rng.random() < 0.7:
            p = float(rng.choice([0.5, 0.9, 0.95, 0.99, 0.999]) if rng.random() < 0.5 else rng.uniform(0.01, 0.999))
            spec = {"percentile": p}
            cap = float(np.quantile(positive, p))
        else:
            cap = float(np.round(rng.uniform(5, 200), 2))
            spec = {"absolute": cap}
        cc, cv = np.minimum(xc, cap), np.minimum(xv, cap)
        if cc.var() == 0 and cv.var() == 0:
            continue
        res = stats.ttest_ind(cv, cc, equal_var=False)
        ci = res.confidence_interval(0.95)
        cases.append({
            "control_users": nc, "control_values": [float(x) for x in xc if x != 0],
            "variant_users": nv, "variant_values": [float(x) for x in xv if x != 0],
            "revenue_cap": spec, "cap": cap,
            "mean_difference": float(cv.mean() - cc.mean()), "p_value": float(res.pvalue),
            "ci": [float(ci.low), float(ci.high)],
        })
    return cases

METRICS = {  # name: (unit, numerator or None for revenue)
    "trial_start_rate": ("exposure", "trial_start"), "paid_conversion": ("exposure", "paid"),
    "trial_to_paid": ("trial_start", "converted"), "day0_cancel_rate": ("day0_window_passed", "day0_cancel"),
    "trial_cancel_rate": ("trial_length_known", "trial_cancel"), "revenue_per_user": ("exposure", None),
    "refund_rate": ("paid", "refund"), "billing_issue_rate": ("charge_due", "billing_issue"),
}

def maybe(mask, values):
    return [int(v) if m else None for m, v in zip(mask, values)]

def horizon_cases(count):
    cases = []
    for _ in range(count):
        n = int(rng.integers(8, 40))
        trial_days = [int(rng.choice([0, 3, 7, 14])), int(rng.choice([3, 7, 14, 30]))]
        window_hours = float(rng.choice([12, 24, 48]))
        horizon = int(rng.choice([1, 3, 7, 14, 30, 60, 365])) if rng.random() < 0.3 else int(rng.integers(1, 31))
        start = 1_796_083_200
        as_of = start + int(rng.integers(1, 90)) * DAY + int(rng.integers(0, DAY))
        variant = rng.integers(0, 2, size=n)
        exposure = start + rng.integers(0, max(1, as_of - start), size=n)
        # Each fact an offset from the exposure (or absent), a few exactly on the horizon's edge.
        def offsets(p, scale):
            has = rng.random(n) < p
            off = rng.integers(0, scale, size=n)
            edge = rng.random(n) < 0.08
            off[edge] = horizon * DAY - rng.integers(0, 2, size=edge.sum())
            return has, off
        has_trial, trial_off = offsets(0.5, 5 * DAY)
        trial = exposure + trial_off
        has_paid, paid_off = offsets(0.4, 40 * DAY)
        paid = exposure + paid_off
        has_conv = has_paid & has_trial & (rng.random(n) < 0.8)
        paid = np.where(has_conv, np.maximum(paid, trial), paid)
        has_cancel, cancel_gap = offsets(0.4, 20 * DAY)
        cancel = np.where(has_trial, trial, exposure) + cancel_gap
        has_refund = has_paid & (rng.random(n) < 0.3)
        refund = paid + rng.integers(0, 5 * DAY, size=n)
        has_issue, issue_off = offsets(0.3, 40 * DAY)
        issue = exposure + issue_off
        entries = []
        for i in range(n):
            e = []
            if has_paid[i]:
                t = int(paid[i] - exposure[i])
                amount = float(rng.choice([9.99, 59.99]))
                e.append([t, amount])
                for k in range(int(rng.integers(0, 4))):
                    e.append([t + (k + 1) * 30 * DAY, amount])
                if has_refund[i]:
                    e.append([int(refund[i] - exposure[i]), -amount])
                e.sort(key=lambda x: x[0])
            entries.append(e)
        # Facts as the store keeps them: seen by the as-of time (a report cuts later times itself).
        users = [{
            "variant": int(variant[i]), "first_exposure": int(exposure[i]),
            "trial_start": int(trial[i]) if has_trial[i] else None,
            "first_paid": int(paid[i]) if has_paid[i] else None,
            "first_converted": int(paid[i]) if has_conv[i] else None,
            "first_cancel": int(cancel[i]) if has_cancel[i] else None,
            "refunded": int(refund[i]) if has_refund[i] else None,
            "billing_issue": int(issue[i]) if has_issue[i] else None,
            "revenue_entries": entries[i],
        } for i in range(n)]
        # Expected, with numpy over the whole population.
        end = exposure + horizon * DAY
        eligible = end <= as_of
        inside = lambda has, t: has & (t < end)
        tr = inside(has_trial, trial)
        facts = {
            "exposure": np.ones(n, bool), "trial_start": tr, "paid": inside(has_paid, paid),
            "converted": inside(has_conv, paid) & tr, "refund": inside(has_refund, refund),
        }
        c_in = inside(has_cancel, cancel) & tr & (cancel >= trial)
        facts["day0_cancel"] = c_in & ((cancel - trial) <= window_hours * 3600)
        # Maturity: Day-0 cancels count trial starters whose window ends inside the first N days.
        facts["day0_window_passed"] = tr & (trial + window_hours * 3600 < end)
        facts["trial_cancel"] = c_in & ((cancel - trial) < np.array(trial_days)[variant] * DAY)
        # A trial start carries no trial_days here: in an arm with no trial its length cannot be told, so it is left out.
        facts["trial_length_known"] = tr & (np.array(trial_days)[variant] > 0)
        # The first charge came due at the first payment or the end of the arm's trial, whichever came first.
        trial_end = np.where(has_trial, trial + np.array(trial_days)[variant] * DAY, np.iinfo(np.int64).max)
        due = np.minimum(np.where(has_paid, paid, np.iinfo(np.int64).max), trial_end)
        facts["charge_due"] = (has_paid | has_trial) & (due < end)
        facts["billing_issue"] = inside(has_issue, issue)
        revenue = np.array([sum(a for t, a in e if t < horizon * DAY) for e in entries])
        expected = {}
        for name, (unit, num) in METRICS.items():
            per = []
            for v in (0, 1):
                den = eligible & (variant == v) & facts[unit]
                if num is None:
                    per.append({"count": int((den & (revenue != 0)).sum()), "denominator": int(den.sum()), "sum": float(revenue[den].sum())})
                else:
                    per.append({"count": int((den & facts[num]).sum()), "denominator": int(den.sum())})
            expected[f"{name}_d{horizon}"] = per
        cases.append({"trial_days": trial_days, "day0_window_hours": window_hours, "as_of": int(as_of), "horizon": horizon,
                      "users": users, "expected": expected})
    return cases

for name, cases in [("capping", capping_cases(250)), ("horizons", horizon_cases(250))]:
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump({"generator": "make_revenue_fixtures.py", "cases": cases}, f, separators=(",", ":"))
    print(name, len(cases), "cases")
