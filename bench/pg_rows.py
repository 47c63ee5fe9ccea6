#!/usr/bin/env python3
"""NDJSON events -> the TSV that `psql \\copy` loads into a table shaped like abctl's PostgreSQL
`events` (same columns, same primary key), for bench/postgres.sh's reference. Repeats of
(user_id, event_id) are dropped, as abctl drops them, so the primary key holds.

    python3 bench/pg_rows.py events.ndjson > events.tsv
"""
import json, sys
from datetime import datetime

TYPES = {"exposure": 1, "trial_started": 2, "purchased": 3, "converted": 4, "renewed": 5, "cancelled": 6, "refunded": 7}

def micros(ts):
    d = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return int(d.timestamp()) * 1_000_000 + d.microsecond

def field(v):
    if v is None:
        return "\\N"
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")

seen = set()
out = sys.stdout
with open(sys.argv[1]) as f:
    for line in f:
        if not line.strip():
            continue
        e = json.loads(line)
        key = (e["user_id"], e["event_id"])
        if key in seen:
            continue
        seen.add(key)
        row = [e["user_id"], e["event_id"], TYPES[e["type"]], micros(e["ts"]), e.get("experiment"), e.get("variant"),
               e.get("revenue"), e.get("currency"), e.get("product_id"), e.get("copy_source"), e.get("copy_text"),
               e.get("copy_fallback_reason")]
        out.write("\t".join(field(v) for v in row) + "\n")
