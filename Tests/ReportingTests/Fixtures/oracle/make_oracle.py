#!/usr/bin/env python3
"""Makes the Reporting oracle: raw events, and every number of the report computed from them
independently of abctl, with scipy, statsmodels and lifelines.

    python3 make_oracle.py      # writes events.ndjson, facts.ndjson and expected.json here

Per-user facts are derived here from the raw events (a user counts from the first
exposure; earlier events are ignored; forced users are left out), not taken from abctl's store.
Requires scipy, statsmodels, lifelines (see requirements.txt beside this file).
"""
import json, math, os, random
from datetime import datetime, timezone

import numpy as np
from scipy import stats, integrate
from statsmodels.stats.proportion import (confint_proportions_2indep, proportion_confint, proportions_ztest,
                                          samplesize_proportions_2indep_onetail)
from statsmodels.stats.multitest import multipletests
from lifelines import KaplanMeierFitter
from lifelines.statistics import multivariate_logrank_test

HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENT = json.load(open(os.path.join(HERE, "experiments", "oracle-report.json")))
EXP_ID = EXPERIMENT["id"]
VARIANTS = [v["key"] for v in EXPERIMENT["variants"]]
WEIGHTS = [v.get("weight", 1) for v in EXPERIMENT["variants"]]
TRIAL_DAYS = {v["key"]: v["paywall"]["trial_days"] for v in EXPERIMENT["variants"]}
FORCED = set(EXPERIMENT.get("forced", {}))
ALPHA = 0.05
DAY = 86400
START = int(datetime(2026, 12, 1, tzinfo=timezone.utc).timestamp())
AS_OF = int(datetime(2026, 12, 31, tzinfo=timezone.utc).timestamp())   # generated_at of the report
DAY0_HOURS = EXPERIMENT["metrics"]["day0_window_hours"]
MDE = EXPERIMENT["metrics"]["minimum_effect"]
REPORT_DAYS = [0, 1, 3, 7, 14, 30]

def ts(sec):
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

# ---------------------------------------------------------------- events
rng = random.Random(20261201)
TRUE = {  # per variant: trial start, cancel (of trial starters), convert (of those who did not cancel), direct purchase
    "control": (0.30, 0.35, 0.45, 0.02),
    "name":    (0.31, 0.36, 0.45, 0.02),
    "ai":      (0.36, 0.30, 0.50, 0.02),
}
events = []
seq = 0
def emit(etype, user, sec, **extra):
    global seq
    seq += 1
    e = {"event_id": f"e{seq:06d}", "type": etype, "user_id": user, "ts": ts(sec)}
    e.update(extra)
    events.append(e)

N = 3000
dues = []  # (user, when a first charge came due, whether it went through): billing issues are drawn below
for i in range(N + 1):
    user = "qa-device-1" if i == N else f"u{i:05d}"
    variant = "ai" if user in FORCED else rng.choice(VARIANTS)
    # Exposures from Nov 30 (a few before the start, on purpose) to Dec 28.
    exposure = START - DAY + rng.randrange(0, 29 * DAY) if i % 400 == 7 else START + rng.randrange(0, 28 * DAY)
    extra = {}
    if variant == "ai":
        r = rng.random()
        if r < 0.7:
            extra = {"copy_source": "on_device", "copy_text": "Chorus names every song."}
        elif r < 0.8:
            extra = {"copy_source": "server"}
        else:
            extra = {"copy_source": "fallback", "copy_fallback_reason": rng.choice(["empty_brief", "empty_brief", "guard_rejected", "timeout"])}
    elif variant == "name":
        extra = {"copy_source": "template"}
    else:
        extra = {"copy_source": "static"}
    if i % 97 == 3:  # an event before the first exposure: ignored
        emit("trial_started", user, exposure - 3 * 3600)
    emit("exposure", user, exposure, experiment=EXP_ID, variant=variant, **extra)
    if i % 131 == 5:  # a later second exposure, even to another variant: the first one counts
        emit("exposure", user, exposure + 2 * 3600, experiment=EXP_ID, variant=rng.choice(VARIANTS), copy_source="static")
    p_trial, p_cancel, p_convert, p_buy = TRUE[variant]
    if rng.random() < p_trial:
        trial = exposure + rng.randrange(60, 7200)
        emit("trial_started", user, trial, product_id="chorus.plus.annual")
        trial_end = trial + TRIAL_DAYS[variant] * DAY
        cancelled = False
        if rng.random() < p_cancel:
            # half within a day, the rest spread over three weeks (some after the trial)
            after = rng.randrange(600, DAY) if rng.random() < 0.5 else rng.randrange(DAY, 21 * DAY)
            if trial + after < AS_OF:
                emit("cancelled", user, trial + after)
                cancelled = trial + after < trial_end
        if trial_end < AS_OF:
            dues.append((user, trial_end, False))
        if not cancelled and rng.random() < p_convert and trial_end < AS_OF:
            dues[-1] = (user, trial_end, True)
            emit("converted", user, trial_end, revenue=59.99, currency="USD", product_id="chorus.plus.annual")
            if rng.random() < 0.05 and trial_end + 2 * DAY < AS_OF:
                emit("refunded", user, trial_end + 2 * DAY, revenue=-59.99, currency="USD")
    elif rng.random() < p_buy:
        buy = exposure + rng.randrange(60, 5 * DAY)
        if buy < AS_OF:
            dues.append((user, buy, True))
            emit("purchased", user, buy, revenue=9.99, currency="USD", product_id="chorus.plus.monthly")
            if buy + 30 * DAY < AS_OF:
                emit("renewed", user, buy + 30 * DAY, revenue=9.99, currency="USD")

# Billing issues, from a generator of their own so every event above is as it was: a first charge that
# went through failed first (recovered at once) for 10% of payers; a trial that came due without a
# conversion failed for 20% of the others (the store gave up).
life = random.Random(20261202)
for user, due, paid in dues:
    if life.random() < (0.10 if paid else 0.20):
        emit("billing_issue", user, due - (3600 if paid else 0))

rng.shuffle(events)  # arrival order must not matter
with open(os.path.join(HERE, "events.ndjson"), "w") as f:
    for e in events:
        f.write(json.dumps(e, separators=(",", ":")) + "\n")

# ---------------------------------------------------------------- facts, derived here
def parse(s):
    return int(datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())

by_user = {}
for e in events:
    by_user.setdefault(e["user_id"], []).append(e)
facts = []
for user, evs in sorted(by_user.items()):
    evs = sorted(evs, key=lambda e: (parse(e["ts"]), e["event_id"]))
    exposures = [e for e in evs if e["type"] == "exposure"]
    if not exposures:
        continue
    first = exposures[0]
    t0 = parse(first["ts"])
    after = [e for e in evs if parse(e["ts"]) >= t0]
    def first_of(*types, since=t0):
        for e in after:
            if e["type"] in types and parse(e["ts"]) >= since:
                return parse(e["ts"])
        return None
    trial = first_of("trial_started")
    revenue = 0.0
    entries = []  # (seconds after the first exposure, amount) of each revenue event
    for e in after:
        amount = 0.0
        if e["type"] in ("purchased", "converted", "renewed"):
            amount = e.get("revenue", 0)
        elif e["type"] == "refunded":
            amount = -abs(e.get("revenue", 0))
        if amount != 0:
            revenue += amount
            entries.append([parse(e["ts"]) - t0, amount])
    facts.append({
        "user_id": user, "variant": first["variant"], "first_exposure": t0, "trial_start": trial,
        "first_paid": first_of("converted", "purchased"), "first_converted": first_of("converted"),
        "first_cancel": first_of("cancelled", since=trial if trial is not None else t0),
        "refunded_at": first_of("refunded"), "net_revenue": round(revenue, 10), "revenue_entries": entries,
        "billing_issue": first_of("billing_issue"),
        "crossed_over": any(e["variant"] != first["variant"] for e in exposures[1:]),
        "copy_source": first.get("copy_source"), "copy_fallback_reason": first.get("copy_fallback_reason"),
    })
with open(os.path.join(HERE, "facts.ndjson"), "w") as f:
    for row in facts:
        f.write(json.dumps(row, separators=(",", ":")) + "\n")

# ---------------------------------------------------------------- the report
counted = [r for r in facts if r["user_id"] not in FORCED]
z = stats.norm.ppf(1 - ALPHA / 2)

# The metric table (docs/Reports.md): name -> (unit fact, numerator fact, or None for mean net revenue).
TABLE = {
    "trial_start_rate": ("exposure", "trial_start"),
    "paid_conversion": ("exposure", "paid"),
    "trial_to_paid": ("trial_start", "converted"),
    # Day-0 cancels are read among trial starters whose Day-0 window has passed by the as-of time.
    "day0_cancel_rate": ("trial_start_day0_passed", "day0_cancel"),
    "trial_cancel_rate": ("trial_start", "trial_cancel"),
    "revenue_per_user": ("exposure", None),
    "refund_rate": ("paid", "refund"),
    # Users whose first charge came due: the first payment, or the end of the trial, whichever came first.
    "billing_issue_rate": ("charge_due", "billing_issue"),
}
NAMED = [EXPERIMENT["metrics"]["primary"]] + EXPERIMENT["metrics"].get("guardrails", []) + EXPERIMENT["metrics"].get("secondary", [])
METRICS = list(TABLE) + [m for m in dict.fromkeys(NAMED) if m not in TABLE]
# Maturity: the verdict reads each primary or guardrail metric that settles after the trial
# in its _dN form, N = the longest trial + maturity_grace_days (3), and the report shows it.
SETTLES = ("paid_conversion", "trial_to_paid", "trial_cancel_rate", "revenue_per_user", "refund_rate", "billing_issue_rate")
MATURE_DAYS = max(v["paywall"]["trial_days"] for v in EXPERIMENT["variants"]) + EXPERIMENT["metrics"].get("maturity_grace_days", 3)
for m in [EXPERIMENT["metrics"]["primary"]] + EXPERIMENT["metrics"].get("guardrails", []):
    if m in SETTLES and f"{m}_d{MATURE_DAYS}" not in METRICS:
        METRICS.append(f"{m}_d{MATURE_DAYS}")
CAP = EXPERIMENT["metrics"].get("revenue_cap")

def split(name):
    """'paid_conversion_d7' -> ('paid_conversion', 7); 'paid_conversion' -> ('paid_conversion', None)."""
    if name in TABLE:
        return name, None
    base, _, days = name.rpartition("_d")
    return base, int(days)

def outcome(r, key, horizon_days):
    """What user r did in the window: up to the as-of time, or in its first N days (None: not followed that long)."""
    if horizon_days is None:
        limit = AS_OF   # Nothing at or after the as-of moment counts
    else:
        limit = r["first_exposure"] + horizon_days * DAY
        if limit > AS_OF:
            return None
    w = lambda t: t if t is not None and t < limit else None
    o = {"exposure": r["first_exposure"], "trial_start": w(r["trial_start"]), "paid": w(r["first_paid"]),
         "converted": w(r["first_converted"]), "refund": w(r["refunded_at"]), "day0_cancel": None, "trial_cancel": None}
    dues = [t for t in (r["first_paid"], r["trial_start"] + TRIAL_DAYS[key] * DAY if r["trial_start"] is not None else None) if t is not None]
    o["charge_due"] = w(min(dues)) if dues else None
    o["billing_issue"] = w(r["billing_issue"]) if o["charge_due"] is not None else None
    # Day-0 cancels count a trial starter once the window has passed: by the as-of time, or for _dN by the end of the first N days.
    # A window that ends at the as-of moment has passed (the moment itself is after it).
    passed_by = AS_OF + 1 if horizon_days is None else limit
    o["trial_start_day0_passed"] = o["trial_start"] if o["trial_start"] is not None and o["trial_start"] + DAY0_HOURS * 3600 < passed_by else None
    c = w(r["first_cancel"])
    if o["trial_start"] is not None and c is not None and c >= o["trial_start"]:
        hours = (c - o["trial_start"]) / 3600
        if hours <= DAY0_HOURS: o["day0_cancel"] = c
        if hours < TRIAL_DAYS[key] * 24: o["trial_cancel"] = c
    if horizon_days is None:
        o["revenue"] = r["net_revenue"]
    else:
        o["revenue"] = sum(a for off, a in r["revenue_entries"] if off < horizon_days * DAY)
    return o

def per_variant(key):
    rows = [r for r in counted if r["variant"] == key]
    starters = [r for r in rows if r["trial_start"] is not None]
    out = {"rows": rows, "starters": starters}
    for name in METRICS:
        base, days = split(name)
        unit, numerator = TABLE[base]
        outs = [o for o in (outcome(r, key, days) for r in rows) if o is not None and o[unit] is not None]
        if numerator is None:
            out[name] = np.array([o["revenue"] for o in outs], dtype=float)
        else:
            out[name] = (sum(o[numerator] is not None for o in outs), len(outs))
    return out

V = {k: per_variant(k) for k in VARIANTS}
RATES = [m for m in METRICS if TABLE[split(m)[0]][1] is not None]
REVENUE = [m for m in METRICS if m not in RATES]
LOWER_IS_BETTER = {"day0_cancel_rate", "trial_cancel_rate", "refund_rate", "billing_issue_rate"}

def cap_for(m):
    """metrics.revenue_cap for metric m: numpy's default (linear) quantile of the positive values pooled over variants."""
    if CAP is None:
        return None
    if "absolute" in CAP:
        return float(CAP["absolute"])
    pooled = np.concatenate([V[k][m] for k in VARIANTS])
    positive = pooled[pooled > 0]
    return float(np.quantile(positive, CAP["percentile"])) if len(positive) else None

CAPS = {m: cap_for(m) for m in REVENUE}
for m in REVENUE:
    if CAPS[m] is not None:
        for k in VARIANTS:
            V[k][m] = np.minimum(V[k][m], CAPS[m])

variants_out = []
for k in VARIANTS:
    metrics = {}
    for m in RATES:
        c, n = V[k][m]
        lo, hi = proportion_confint(c, n, alpha=ALPHA, method="wilson")
        metrics[m] = {"count": c, "denominator": n, "rate": c / n, "ci": [lo, hi]}
    for m in REVENUE:
        x = V[k][m]
        mean = x.mean()
        lo, hi = stats.t.interval(1 - ALPHA, len(x) - 1, loc=mean, scale=stats.sem(x))
        metrics[m] = {"count": int((x != 0).sum()), "denominator": len(x), "rate": mean, "ci": [lo, hi], "sum": x.sum(), "cap": CAPS[m]}
    variants_out.append({"key": k, "users": len(V[k]["rows"]), "metrics": metrics})

def normal_chance_and_loss(xc, xv):
    """Revenue: D ~ Normal(d, s^2); P(D > 0) and E[max(-D, 0)] by numerical integration."""
    d = xv.mean() - xc.mean()
    s = math.sqrt(xv.var(ddof=1) / len(xv) + xc.var(ddof=1) / len(xc))
    chance = stats.norm.sf(0, loc=d, scale=s)
    loss = integrate.quad(lambda x: -x * stats.norm.pdf(x, loc=d, scale=s), d - 40 * s, 0, epsabs=1e-14, epsrel=1e-12, limit=500)[0] if d - 40 * s < 0 else 0.0
    return chance, loss

def beta_chance_and_loss(kc, nc, kv, nv):
    """P(Xv > Xc) and E[max(Xc - Xv, 0)] for Xi ~ Beta(1 + k, 1 + n - k), by numerical integration."""
    c = stats.beta(1 + kc, 1 + nc - kc)
    v = stats.beta(1 + kv, 1 + nv - kv)
    lo = max(0.0, min(c.ppf(1e-12), v.ppf(1e-12)))
    hi = min(1.0, max(c.isf(1e-12), v.isf(1e-12)))
    chance = integrate.quad(lambda x: v.pdf(x) * c.cdf(x), lo, hi, epsabs=1e-13, epsrel=1e-11, limit=500)[0]
    # E[(Xc - Xv)+] = integral over x of f_c(x) * E[(x - Xv)+], and E[(x - Y)+] = integral_0^x F_Y(t) dt.
    inner = lambda x: integrate.quad(v.cdf, lo, x, epsabs=1e-14, epsrel=1e-11, limit=200)[0] if x > lo else 0.0
    loss = integrate.quad(lambda x: c.pdf(x) * inner(x), lo, hi, epsabs=1e-13, epsrel=1e-10, limit=500)[0]
    return chance, loss

def msprt_look(kc, nc, kv, nv, tau2, alpha):
    """Normal-mixture mSPRT (Johari, Pekelis and Walsh 2017) at one look, for p_v - p_c: (p, interval)."""
    pc, pv = kc / nc, kv / nv
    d = pv - pc
    s2 = pc * (1 - pc) / nc + pv * (1 - pv) / nv
    if s2 == 0:
        return 1.0, [-1.0, 1.0]
    log_lr = 0.5 * math.log(s2 / (s2 + tau2)) + tau2 * d * d / (2 * s2 * (s2 + tau2))
    p = min(1.0, math.exp(-max(0.0, log_lr)))
    half = math.sqrt(2 * s2 * (s2 + tau2) / tau2 * (math.log(1 / alpha) + 0.5 * math.log(1 + tau2 / s2)))
    return p, [max(-1.0, d - half), min(1.0, d + half)]

def msprt_daily(series, tau2, alpha):
    """One look per day over cumulative counts: running minimum p-value, running intersection of intervals
    (the newest interval when they stop overlapping)."""
    p_run, ci_run = 1.0, None
    for kc, nc, kv, nv in series:
        if nc == 0 or nv == 0:
            continue
        p, ci = msprt_look(kc, nc, kv, nv, tau2, alpha)
        p_run = min(p_run, p)
        if ci_run is None:
            ci_run = ci
        else:
            lo, hi = max(ci_run[0], ci[0]), min(ci_run[1], ci[1])
            ci_run = [lo, hi] if lo <= hi else ci
    return p_run, ci_run

def day_index(t):
    """Whole UTC days since the experiment's start day, clamped to the looks [0, as-of day]."""
    return min(max(0, (t - START) // DAY), (AS_OF - START) // DAY)

def daily_series(m, kc_rows, kv_rows, key_c, key_v):
    """Cumulative (k_c, n_c, k_v, n_v) at the end of each day for rate metric m."""
    days = (AS_OF - START) // DAY + 1
    def counts(rows, key):
        den, num = [0] * days, [0] * days
        for r in rows:
            if m == "billing_issue_rate":
                dues = [t for t in (r["first_paid"], r["trial_start"] + TRIAL_DAYS[key] * DAY if r["trial_start"] is not None else None) if t is not None]
                if dues and min(dues) < AS_OF:
                    den[day_index(min(dues))] += 1
                    if r["billing_issue"] is not None and r["billing_issue"] < AS_OF:
                        num[day_index(r["billing_issue"])] += 1
            elif m == "refund_rate":
                if r["first_paid"] is not None:
                    den[day_index(r["first_paid"])] += 1
                    if r["refunded_at"] is not None:
                        num[day_index(r["refunded_at"])] += 1
            elif m in ("trial_start_rate", "paid_conversion"):
                den[day_index(r["first_exposure"])] += 1
                t = r["trial_start"] if m == "trial_start_rate" else r["first_paid"]
                if t is not None:
                    num[day_index(t)] += 1
            elif r["trial_start"] is not None and (m != "day0_cancel_rate" or r["trial_start"] + DAY0_HOURS * 3600 <= AS_OF):
                den[day_index(r["trial_start"])] += 1
                if m == "trial_to_paid":
                    t = r["first_converted"]
                else:
                    h = (r["first_cancel"] - r["trial_start"]) / 3600 if r["first_cancel"] is not None else None
                    ok = h is not None and (h <= DAY0_HOURS if m == "day0_cancel_rate" else h < TRIAL_DAYS[key] * 24)
                    t = r["first_cancel"] if ok else None
                if t is not None:
                    num[day_index(t)] += 1
        return den, num
    dc, nc_ = counts(kc_rows, key_c)
    dv, nv_ = counts(kv_rows, key_v)
    out, a, b, c, d = [], 0, 0, 0, 0
    for i in range(days):
        a += nc_[i]; b += dc[i]; c += nv_[i]; d += dv[i]
        out.append((a, b, c, d))
    return out

comparisons = []
for m in RATES + REVENUE:
    rows = []
    for k in VARIANTS[1:]:
        if m in REVENUE:
            xc, xv = V["control"][m], V[k][m]
            res = stats.ttest_ind(xv, xc, equal_var=False)
            ci = res.confidence_interval(1 - ALPHA)
            mc, mv = xc.mean(), xv.mean()
            vc, vv = xc.var(ddof=1) / len(xc), xv.var(ddof=1) / len(xv)
            lift = mv / mc - 1 if mc > 0 else None
            # The delta method on the log of the ratio of means, when both means are positive.
            se = math.sqrt(vc / mc**2 + vv / mv**2) if mc > 0 and mv > 0 else None
            rci = [math.exp(math.log(mv / mc) - z * se) - 1, math.exp(math.log(mv / mc) + z * se) - 1] if se is not None else None
            rows.append({"variant": k, "metric": m, "absolute_diff": mv - mc, "absolute_ci": [ci.low, ci.high],
                         "relative_lift": lift, "relative_ci": rci, "p_value": res.pvalue,
                         "chance_to_win": normal_chance_and_loss(xc, xv)[0], "expected_loss": normal_chance_and_loss(xc, xv)[1],
                         "cap": CAPS[m]})
            continue
        kc, nc = V["control"][m]
        kv, nv = V[k][m]
        pc, pv = kc / nc, kv / nv
        vc, vv = pc * (1 - pc) / nc, pv * (1 - pv) / nv
        d = pv - pc
        # The log-ratio (Katz) interval of the rate ratio, minus 1; null with a zero count in either arm.
        lift, rci = None, None
        if kc > 0 and kv > 0:
            lift = pv / pc - 1
            lo, hi = confint_proportions_2indep(kv, nv, kc, nc, compare="ratio", method="log", alpha=ALPHA)
            rci = [lo - 1, hi - 1]
        _, p = proportions_ztest([kv, kc], [nv, nc])
        # In the metric's good direction: for cancel and refund rates, the chance the variant's rate is lower.
        lower_is_better = split(m)[0] in LOWER_IS_BETTER
        chance, loss = beta_chance_and_loss(kv, nv, kc, nc) if lower_is_better else beta_chance_and_loss(kc, nc, kv, nv)
        row = {"variant": k, "metric": m, "absolute_diff": d, "absolute_ci": [d - z * math.sqrt(vc + vv), d + z * math.sqrt(vc + vv)],
               "relative_lift": lift, "relative_ci": rci, "p_value": p,
               "chance_to_win": chance, "expected_loss": loss}
        if EXPERIMENT["metrics"].get("sequential") and split(m)[1] is None:
            tau2 = (MDE * pc) ** 2
            series = daily_series(m, V["control"]["rows"], V[k]["rows"], "control", k)
            assert series[-1] == (kc, nc, kv, nv)
            row["sequential_p_value"], row["sequential_ci"] = msprt_daily(series, tau2, ALPHA)
        rows.append(row)
    adjusted = multipletests([r["p_value"] for r in rows], alpha=ALPHA, method="holm")[1]
    for r, a in zip(rows, adjusted):
        r["p_value_adjusted"] = a
    comparisons += rows

users = [len(V[k]["rows"]) for k in VARIANTS]
total = sum(users)
chi = stats.chisquare(users, [total * w / sum(WEIGHTS) for w in WEIGHTS])

survival = {"days": REPORT_DAYS, "variants": {}, "intervals": {}}
T, E, G = [], [], []
for k in VARIANTS:
    t = [((r["first_cancel"] - r["trial_start"]) if r["first_cancel"] is not None else (AS_OF - r["trial_start"])) / DAY for r in V[k]["starters"]]
    e = [r["first_cancel"] is not None for r in V[k]["starters"]]
    kmf = KaplanMeierFitter(alpha=ALPHA).fit(t, e)
    # Day d is the (d + 1)-th 24 hours since trial start (day 0 holds the Day-0 cancels): survival at its end.
    ends = [d + 1 for d in REPORT_DAYS]
    survival["variants"][k] = [float(s) for s in kmf.survival_function_at_times(ends)]
    ci = kmf.confidence_interval_
    survival["intervals"][k] = [[float(ci[ci.index <= d].iloc[-1, 0]), float(ci[ci.index <= d].iloc[-1, 1])] for d in ends]
    T += t; E += e; G += [k] * len(t)
survival["log_rank_p"] = float(multivariate_logrank_test(T, G, E).p_value)

copy_sources, fallback_reasons = {}, {}
for k in ["ai"]:
    for r in V[k]["rows"]:
        copy_sources.setdefault(k, {}).setdefault(r["copy_source"] or "unknown", 0)
        copy_sources[k][r["copy_source"] or "unknown"] += 1
        if r["copy_fallback_reason"]:
            fallback_reasons.setdefault(k, {}).setdefault(r["copy_fallback_reason"], 0)
            fallback_reasons[k][r["copy_fallback_reason"]] += 1

def revenue_by_day(k):
    """Realised LTV: sum over days j <= d of (revenue on day j of users followed >= j days) / (users followed >= j days),
    each user's running total capped at revenue_per_user's cap; followed days capped at 30."""
    rows = V[k]["rows"]
    cap = CAPS["revenue_per_user"]
    followed = [min(30, (AS_OF - r["first_exposure"]) // DAY) for r in rows]
    by_day = [0.0] * 31
    for r, f in zip(rows, followed):
        total = 0.0
        for off, a in r["revenue_entries"]:
            if off >= AS_OF - r["first_exposure"] or off // DAY > f:
                continue
            before = min(total, cap) if cap is not None else total
            total += a
            after = min(total, cap) if cap is not None else total
            by_day[off // DAY] += after - before
    out, running = [], 0.0
    for d in range(31):
        n = sum(f >= d for f in followed)
        if n:
            running += by_day[d] / n
        out.append({"day": d, "users": n, "revenue_per_user": running if n else None})
    return out

def conversion_by_day(k):
    """1 - Kaplan-Meier of 'not paid yet' over whole days since exposure, censored at the days followed (capped at 30)."""
    rows = V[k]["rows"]
    followed = [min(30, (AS_OF - r["first_exposure"]) // DAY) for r in rows]
    paid_day = [(r["first_paid"] - r["first_exposure"]) // DAY if r["first_paid"] is not None else None for r in rows]
    paid = [p is not None and p <= f for p, f in zip(paid_day, followed)]
    T = [p if e else f for p, f, e in zip(paid_day, followed, paid)]
    kmf = KaplanMeierFitter().fit(T, paid)
    out = []
    for d in range(31):
        n = sum(f >= d for f in followed)
        out.append({"day": d, "users": n, "rate": float(1 - kmf.survival_function_at_times([d]).iloc[0]) if n else None})
    return out

# Users needed per variant (Bonferroni over the K - 1 comparisons, as the Statistics power function documents).
# The power calculation reads the primary as the verdict reads it: its mature form.
PRIMARY = EXPERIMENT["metrics"]["primary"]
VERDICT_PRIMARY = f"{PRIMARY}_d{MATURE_DAYS}" if PRIMARY in SETTLES else PRIMARY
base = V["control"][VERDICT_PRIMARY][0] / V["control"][VERDICT_PRIMARY][1]
n_needed = samplesize_proportions_2indep_onetail(base * MDE, base, 0.8, ratio=1, alpha=ALPHA / (len(VARIANTS) - 1), alternative="two-sided")
required = math.ceil(n_needed)

def timeline():
    """The effect over time: one point a day from the start's day to the as-of day, each the verdict's
    primary comparison as a report run to that day's end gives it: the users first exposed by then, a
    _dN metric counting a user once followed N days by then; the unpooled Wald difference (statsmodels)."""
    base, horizon = split(VERDICT_PRIMARY)
    assert horizon is not None and TABLE[base][1] is not None, "the oracle's timeline is written for a _dN rate"
    unit, numerator = TABLE[base]
    points = []
    for day in range(START // DAY, (AS_OF - 1) // DAY + 1):
        cut = min((day + 1) * DAY, AS_OF)
        users = {k: sum(1 for r in V[k]["rows"] if r["first_exposure"] < cut) for k in VARIANTS}
        figures = {}
        for k in VARIANTS:
            outs = [outcome(r, k, horizon) for r in V[k]["rows"] if r["first_exposure"] + horizon * DAY <= cut]
            outs = [o for o in outs if o is not None and o[unit] is not None]
            figures[k] = (sum(o[numerator] is not None for o in outs), len(outs))
        comparisons = {}
        kc, nc = figures["control"]
        for k in VARIANTS[1:]:
            kv, nv = figures[k]
            if nc == 0 or nv == 0:
                comparisons[k] = {"absolute_diff": None, "absolute_ci": None}
                continue
            lo, hi = confint_proportions_2indep(kv, nv, kc, nc, compare="diff", method="wald", alpha=ALPHA)
            comparisons[k] = {"absolute_diff": kv / nv - kc / nc, "absolute_ci": [lo, hi]}
        points.append({"date": datetime.fromtimestamp(day * DAY, timezone.utc).strftime("%Y-%m-%d"), "users": users,
                       "comparisons": comparisons})
    return {"metric": VERDICT_PRIMARY, "points": points}

expected = {
    "experiment": EXP_ID, "generated_at": ts(AS_OF), "users": total,
    "crossover_users": sum(1 for r in counted if r["crossed_over"]),
    "revenue_by_day": {k: revenue_by_day(k) for k in VARIANTS},
    "srm": {"p_value": chi.pvalue, "flagged": bool(chi.pvalue < 0.001), "statistic": chi.statistic},
    "variants": variants_out, "comparisons": comparisons, "survival": survival,
    "copy_sources": copy_sources, "fallback_reasons": fallback_reasons,
    "conversion_by_day": {k: conversion_by_day(k) for k in VARIANTS},
    "required_users_per_variant": required,
    "forced_users_left_out": sum(1 for r in facts if r["user_id"] in FORCED),
    "exposed_before_start": sum(1 for r in counted if r["first_exposure"] < START),
    "timeline": timeline(),
}

def clean(o):
    if isinstance(o, dict): return {k: clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)): return [clean(v) for v in o]
    if isinstance(o, (np.floating,)): return float(o)
    if isinstance(o, (np.integer,)): return int(o)
    if isinstance(o, (np.bool_,)): return bool(o)
    return o

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(clean(expected), f, indent=1)
print(f"{len(events)} events, {len(facts)} users with facts, {total} counted")
