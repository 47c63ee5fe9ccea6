#!/usr/bin/env python3
"""Generates realistic paywall events as NDJSON for `abctl ingest`, and the same rows as SQL
INSERT statements for the sqlite3 CLI (columns as in abctl's `events` table).

Users are exposed to one or two of three experiments; some start trials, cancel (some on
day 0), convert, renew, buy without a trial, get refunded. Events come roughly in time order,
with ~2% arriving late and ~0.5% retried (same event_id twice), as store webhooks do.
With --attributes, every exposure also carries the attributes the app sent to assign (platform,
country, app_version, new_user) and a placement, as AbctlClient sends them; they are
drawn from a stream of their own, so the events are otherwise the same.
With --identified P, about P% of the lines are `identified` events (one person, many ids): a user chosen
(from a stream of its own) logs in 30 s after its first exposure as `acct-N`, and its later events
(trials, purchases, renewals, cancellations) arrive under that known id, as a store webhook sends them.
"""
import argparse, json, random, uuid, datetime

TYPES = {"exposure": 1, "trial_started": 2, "purchased": 3, "converted": 4, "renewed": 5, "cancelled": 6, "refunded": 7, "identified": 8}
EXPERIMENTS = {
    "chorus-paywall-copy": ["control", "name", "ai"],
    "chorus-trial-length": ["trial-3d", "trial-7d"],
    "chorus-discount-framing": ["percent-off", "months-free", "per-week"],
}
SOURCES = {"control": "static", "name": "template", "ai": None}
LINES = ["Hear every bird on every walk.", "Birder, hear every bird on every walk.",
         "Picture your next walk with every song named. Chorus can help you get there.",
         "Your dog sets the pace; Chorus names every song along the way."]
EPOCH = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)

def rfc3339(us):
    t = EPOCH + datetime.timedelta(microseconds=us)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (".%03dZ" % (t.microsecond // 1000) if t.microsecond else "Z")

def user_events(rng, uid):
    out = []
    t = rng.randrange(0, 30 * 86400 * 10**6) // 1000 * 1000
    exps = rng.sample(list(EXPERIMENTS), 2 if rng.random() < 0.3 else 1)
    for i, exp in enumerate(exps):
        variant = rng.choice(EXPERIMENTS[exp])
        e = {"type": "exposure", "experiment": exp, "variant": variant, "ts": t + i * 5_000_000}
        if exp == "chorus-paywall-copy":
            src = SOURCES[variant] or ("on_device" if rng.random() < 0.75 else ("server" if rng.random() < 0.5 else "fallback"))
            e["copy_source"] = src
            e["copy_text"] = rng.choice(LINES)
            if src == "fallback":
                e["copy_fallback_reason"] = rng.choice(["empty_brief", "guard_rejected", "timeout"])
        out.append(e)
    r = rng.random()
    if r < 0.40:
        ts = t + rng.randrange(10, 3600) * 10**6
        out.append({"type": "trial_started", "ts": ts, "product_id": "chorus.plus.annual"})
        c = rng.random()
        if c < 0.12:
            out.append({"type": "cancelled", "ts": ts + rng.randrange(60, 86400) * 10**6})
        elif c < 0.30:
            out.append({"type": "cancelled", "ts": ts + rng.randrange(86400, 7 * 86400) * 10**6})
        else:
            conv = ts + 7 * 86400 * 10**6
            out.append({"type": "converted", "ts": conv, "revenue": 59.99, "currency": "USD", "product_id": "chorus.plus.annual"})
            if rng.random() < 0.03:
                out.append({"type": "refunded", "ts": conv + rng.randrange(3600, 5 * 86400) * 10**6, "revenue": -59.99, "currency": "USD"})
    elif r < 0.45:
        ts = t + rng.randrange(10, 3600) * 10**6
        out.append({"type": "purchased", "ts": ts, "revenue": 9.99, "currency": "USD", "product_id": "chorus.plus.monthly"})
        for k in range(rng.randrange(0, 4)):
            out.append({"type": "renewed", "ts": ts + (k + 1) * 30 * 86400 * 10**6, "revenue": 9.99, "currency": "USD", "product_id": "chorus.plus.monthly"})
        if rng.random() < 0.2:
            out.append({"type": "cancelled", "ts": ts + rng.randrange(1, 60) * 86400 * 10**6})
    for e in out:
        e["user_id"] = uid
        e["event_id"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return out

def sql_text(v):
    return "NULL" if v is None else "'" + str(v).replace("'", "''") + "'"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sql")
    ap.add_argument("--attributes", action="store_true")
    ap.add_argument("--identified", type=float, default=0, help="percent of lines that are identified events")
    a = ap.parse_args()
    login_rng = random.Random(a.seed + 2_000_003)
    # A user has about 2.3 lines; a log-in adds one.
    login_share = 0 if a.identified <= 0 else min(1.0, (a.identified / 100) * 2.3 / (1 - a.identified / 100))
    attribute_rng = random.Random(a.seed + 1_000_003)
    countries = ["US", "GB", "DE", "FR", "JP", "BR", "CA", "AU", "IN", "ES", "IS", "MT"]
    weights = [40, 12, 10, 8, 7, 6, 5, 4, 4, 3, 0.05, 0.05]
    rng = random.Random(a.seed)
    events = []
    n = 0
    retries = a.events // 200
    while len(events) < a.events - retries:
        mine = user_events(rng, "user-%07d" % n)
        if login_share and login_rng.random() < login_share:
            known = "acct-%07d" % n
            for e in mine:
                if e["type"] != "exposure":
                    e["user_id"] = known
            mine.insert(1, {"type": "identified", "user_id": "user-%07d" % n, "identity": known,
                            "event_id": "identify:" + known, "ts": mine[0]["ts"] + 30_000_000})
        events.extend(mine)
        n += 1
    events = events[:a.events - retries]
    # Retries: the same event again (same event_id), arriving later in the stream.
    for _ in range(retries):
        e = dict(rng.choice(events))
        e["ts"] += rng.randrange(1, 3600) * 10**6
        events.append(e)
    # Arrival order: by time, except ~2% that arrive late.
    def arrival(e):
        return e["ts"] + (rng.randrange(0, 10 * 86400) * 10**6 if rng.random() < 0.02 else 0)
    keyed = sorted(((arrival(e), i) for i, e in enumerate(events)))
    with open(a.out, "w") as f, (open(a.sql, "w") if a.sql else open("/dev/null", "w")) as s:
        s.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\nBEGIN;\n")
        for _, i in keyed:
            e = events[i]
            line = {"event_id": e["event_id"], "type": e["type"], "user_id": e["user_id"], "ts": rfc3339(e["ts"])}
            for k in ("experiment", "variant", "revenue", "currency", "product_id", "copy_source", "copy_text", "copy_fallback_reason", "identity"):
                if k in e:
                    line[k] = e[k]
            if a.attributes and e["type"] == "exposure":
                line["placement"] = "onboarding_end" if attribute_rng.random() < 0.7 else "feature_gate"
                line["attributes"] = {"platform": "ios" if attribute_rng.random() < 0.6 else "android",
                                      "country": attribute_rng.choices(countries, weights)[0],
                                      "app_version": attribute_rng.choice(["2.3.0", "2.2.1", "2.1.0"]),
                                      "new_user": attribute_rng.random() < 0.9}
            f.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
            if a.sql:
                # ts as stored by abctl: microseconds since 1970 (whole milliseconds here).
                us = int((EPOCH - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)).total_seconds()) * 10**6 + e["ts"] // 1000 * 1000
                vals = [sql_text(e["event_id"]), str(TYPES[e["type"]]), sql_text(e["user_id"]), str(us),
                        sql_text(e.get("experiment")), sql_text(e.get("variant")),
                        "NULL" if "revenue" not in e else repr(float(e["revenue"])),
                        sql_text(e.get("currency")), sql_text(e.get("product_id")), sql_text(e.get("copy_source")),
                        sql_text(e.get("copy_text")), sql_text(e.get("copy_fallback_reason"))]
                s.write("INSERT INTO events(event_id,type,user_id,ts,experiment,variant,revenue,currency,product_id,copy_source,copy_text,copy_fallback_reason) VALUES(" + ",".join(vals) + ") ON CONFLICT(user_id, event_id) DO NOTHING;\n")
        s.write("COMMIT;\n")

main()
