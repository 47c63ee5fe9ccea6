#!/usr/bin/env python3
"""Synthetic events for the report benchmark: USERS exposed users of one experiment and EVENTS
events in all (exposures, trials, cancels, conversions, purchases, then renewals to reach EVENTS).
Every exposure carries the attributes the app sent to assign (platform, country, app_version,
new_user), drawn from a stream of their own, so `report --by country --by platform` has segments
to split (12 countries, two of them rare enough to be pooled into `other`).

    python3 bench/gen_report_events.py --users 1000000 --events 5000000 --experiment chorus-paywall-copy > events.ndjson

Every event is before 2026-12-31T00:00:00Z, the time the benchmark reports as of.
"""
import argparse, random, sys
from datetime import datetime, timezone

ap = argparse.ArgumentParser()
ap.add_argument("--users", type=int, required=True)
ap.add_argument("--events", type=int, required=True)
ap.add_argument("--experiment", default="chorus-paywall-copy")
ap.add_argument("--variants", default="control,name,ai")
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = random.Random(a.seed)
# Attributes come from their own stream: the outcomes stay those of the same seed without them.
attribute_rng = random.Random(a.seed + 1_000_003)
countries = ["US", "GB", "DE", "FR", "JP", "BR", "CA", "AU", "IN", "ES", "IS", "MT"]
country_weights = [40, 12, 10, 8, 7, 6, 5, 4, 4, 3, 0.05, 0.05]
versions = ["2.3.0", "2.2.1", "2.1.0"]

def attributes():
    platform = "ios" if attribute_rng.random() < 0.6 else "android"
    country = attribute_rng.choices(countries, country_weights)[0]
    version = versions[attribute_rng.randrange(len(versions))]
    new_user = "true" if attribute_rng.random() < 0.9 else "false"
    return '{"platform":"%s","country":"%s","app_version":"%s","new_user":%s}' % (platform, country, version, new_user)

variants = a.variants.split(",")
start = int(datetime(2026, 12, 1, tzinfo=timezone.utc).timestamp())
as_of = int(datetime(2026, 12, 31, tzinfo=timezone.utc).timestamp())

def ts(s):
    return datetime.fromtimestamp(s, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

# First pass: the base events of every user; remember paying users to hang renewals on.
out = sys.stdout
write = out.write
n = 0
payers = []
for u in range(a.users):
    uid = "u%07d" % u
    v = variants[rng.randrange(len(variants))]
    t = start + rng.randrange(0, 28 * 86400)
    src = "static" if v == "control" else "template" if v == "name" else rng.choice(["on_device", "on_device", "on_device", "server", "fallback"])
    extra = ',"copy_fallback_reason":"%s"' % rng.choice(["empty_brief", "guard_rejected", "timeout"]) if src == "fallback" else ""
    write('{"event_id":"e%d","type":"exposure","user_id":"%s","ts":"%s","experiment":"%s","variant":"%s","copy_source":"%s"%s,"attributes":%s}\n'
          % (n, uid, ts(t), a.experiment, v, src, extra, attributes())); n += 1
    r = rng.random()
    if r < 0.35:
        tt = t + rng.randrange(60, 3600)
        write('{"event_id":"e%d","type":"trial_started","user_id":"%s","ts":"%s","product_id":"chorus.plus.annual"}\n' % (n, uid, ts(tt))); n += 1
        c = rng.random()
        if c < 0.3:
            ct = tt + (rng.randrange(60, 86400) if rng.random() < 0.5 else rng.randrange(86400, 10 * 86400))
            if ct < as_of:
                write('{"event_id":"e%d","type":"cancelled","user_id":"%s","ts":"%s"}\n' % (n, uid, ts(ct))); n += 1
        elif c < 0.75 and tt + 3 * 86400 < as_of:
            write('{"event_id":"e%d","type":"converted","user_id":"%s","ts":"%s","revenue":59.99,"currency":"USD"}\n' % (n, uid, ts(tt + 3 * 86400))); n += 1
            payers.append((uid, tt + 3 * 86400))
    elif r < 0.40:
        pt = t + rng.randrange(60, 86400)
        write('{"event_id":"e%d","type":"purchased","user_id":"%s","ts":"%s","revenue":9.99,"currency":"USD"}\n' % (n, uid, ts(pt))); n += 1
        payers.append((uid, pt))
# Renewals until the total is reached: more events, the same users.
i = 0
while n < a.events and payers:
    uid, pt = payers[i % len(payers)]
    rt = pt + 3600 * (1 + i // len(payers))
    write('{"event_id":"e%d","type":"renewed","user_id":"%s","ts":"%s","revenue":9.99,"currency":"USD"}\n' % (n, uid, ts(min(rt, as_of - 1)))); n += 1
    i += 1
print(f"{a.users} users, {n} events", file=sys.stderr)
