#!/usr/bin/env bash
# What SQLite itself can do with abctl's event rows on this machine, with no per-row statement
# overhead: the sqlite3 CLI copies N rows from an in-memory table in one INSERT … SELECT (WAL,
# synchronous=FULL, 64 MiB cache, one transaction), two ways:
#   1. into a bare rowid table (appends only: the floor for rows of this size);
#   2. into abctl's own `events` layout (clustered by (user_id, event_id), unique event_id index,
#      duplicates skipped), in file order.
# abctl's ingest also parses JSON, binds every row through a prepared statement and keeps facts
# current in the same transaction; bench/ingest.sh measures that. This script shows the ceiling
# for the store as it is laid out.
#
#   bench/ingest-floor.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/abctl-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), sqlite3 $(sqlite3 --version | cut -d' ' -f1)"
python3 bench/gen_events.py --events "$N" --out "$work/events.ndjson"
python3 - "$work/events.ndjson" "$work/events.csv" <<'PY'
import csv, json, sys
with open(sys.argv[2], "w", newline="") as out:
    w = csv.writer(out)
    for line in open(sys.argv[1]):
        e = json.loads(line)
        w.writerow([e["user_id"], e["event_id"], 1, 0] + [e.get(k, "") for k in
                   ("experiment", "variant", "revenue", "currency", "product_id", "copy_source", "copy_text", "copy_fallback_reason")])
PY

run() {  # run LABEL DDL INSERT-TAIL
    rm -f "$work/floor.sqlite"*
    sqlite3 "$work/floor.sqlite" > "$work/out.txt" <<SQL
PRAGMA journal_mode=WAL;
PRAGMA synchronous=FULL;
PRAGMA cache_size=-65536;
$2
CREATE TEMP TABLE staged (user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text, copy_fallback_reason);
.mode csv
.import $work/events.csv staged
.timer on
BEGIN;
INSERT INTO events (user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text,
                    copy_fallback_reason)
  SELECT user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text,
         copy_fallback_reason FROM staged WHERE true $3;
COMMIT;
SQL
    python3 - "$1" "$N" "$work/out.txt" <<'PY'
import re, sys
label, n, text = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
seconds = sum(float(x) for x in re.findall(r"Run Time: real ([0-9.]+)", text))
print(f"{label:<44} {seconds:6.2f} s  {n / seconds:>10,.0f} rows/s")
PY
}

COLUMNS="user_id TEXT NOT NULL, event_id TEXT NOT NULL, type INTEGER NOT NULL, ts INTEGER NOT NULL, experiment TEXT,
  variant TEXT, revenue REAL, currency TEXT, product_id TEXT, copy_source TEXT, copy_text TEXT, copy_fallback_reason TEXT"
run "bare rowid table, appends only" "CREATE TABLE events ($COLUMNS);" ""
# abctl's layout, as in Sources/SQLiteStore/Store/Schema.swift (migration 1).
run "abctl's events layout, duplicates skipped" \
    "CREATE TABLE events ($COLUMNS, PRIMARY KEY (user_id, event_id)) WITHOUT ROWID;
     CREATE UNIQUE INDEX events_by_event_id ON events(event_id);" \
    "ON CONFLICT (event_id) DO NOTHING"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
