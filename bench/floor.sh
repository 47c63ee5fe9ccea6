# Shared by bench/ingest-floor.sh and bench/ingest.sh (sourced): the sqlite3 CLI copying event
# rows from an in-memory table into a layout in one INSERT … SELECT, one transaction, WAL,
# synchronous=FULL, 64 MiB cache: what SQLite itself does with the rows, with no parsing,
# no per-row statements and no facts.

FLOOR_COLUMNS="user_id TEXT NOT NULL, event_id TEXT NOT NULL, type INTEGER NOT NULL, ts INTEGER NOT NULL, experiment TEXT,
  variant TEXT, revenue REAL, currency TEXT, product_id TEXT, copy_source TEXT, copy_text TEXT, copy_fallback_reason TEXT"
# abctl's events layout (Sources/SQLiteStore/Store/Schema.swift): clustered by the idempotency key.
FLOOR_LAYOUT="CREATE TABLE events ($FLOOR_COLUMNS, PRIMARY KEY (user_id, event_id)) WITHOUT ROWID;"
FLOOR_CONFLICT="ON CONFLICT (user_id, event_id) DO NOTHING"

floor_csv() {  # floor_csv NDJSON CSV
    python3 - "$1" "$2" <<'PY'
import csv, json, sys
with open(sys.argv[2], "w", newline="") as out:
    w = csv.writer(out)
    for line in open(sys.argv[1]):
        e = json.loads(line)
        w.writerow([e["user_id"], e["event_id"], 1, 0] + [e.get(k, "") for k in
                   ("experiment", "variant", "revenue", "currency", "product_id", "copy_source", "copy_text", "copy_fallback_reason")])
PY
}

floor_run() {  # floor_run LABEL DDL INSERT-TAIL WORKDIR N; prints the line and sets FLOOR_SECS
    local work="$4"
    rm -f "$work/floor.sqlite"*
    sqlite3 "$work/floor.sqlite" > "$work/floor-out.txt" <<SQL
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
    FLOOR_SECS=$(python3 -c 'import re, sys; print(sum(float(x) for x in re.findall(r"Run Time: real ([0-9.]+)", open(sys.argv[1]).read())))' "$work/floor-out.txt")
    python3 -c 'import sys; label, n, s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]); print(f"{label:<44} {s:6.2f} s  {n / s:>10,.0f} rows/s")' "$1" "$5" "$FLOOR_SECS"
    rm -f "$work/floor.sqlite"*
}
