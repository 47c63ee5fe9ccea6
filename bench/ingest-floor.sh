#!/usr/bin/env bash
# What SQLite itself can do with abctl's event rows on this machine, with no per-row statement
# overhead: the sqlite3 CLI copies N rows from an in-memory table in one INSERT … SELECT (WAL,
# synchronous=FULL, 64 MiB cache, one transaction), three ways:
#   1. into a bare rowid table (appends only: the floor for rows of this size);
#   2. into abctl's own `events` layout (clustered by its primary key (user_id, event_id), the
#      idempotency key; duplicates skipped), in file order: the floor abctl ingest is measured against;
#   3. for comparison, the layout before schema version 4, which also had a unique event_id index.
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
source bench/floor.sh
floor_csv "$work/events.ndjson" "$work/events.csv"
run() { floor_run "$1" "$2" "$3" "$work" "$N"; }

run "bare rowid table, appends only" "CREATE TABLE events ($FLOOR_COLUMNS);" ""
# abctl's layout, as in Sources/SQLiteStore/Store/Schema.swift (migrations 1 and 4).
run "abctl's events layout, duplicates skipped" "$FLOOR_LAYOUT" "$FLOOR_CONFLICT"
run "before schema 4: + unique event_id index" \
    "CREATE TABLE events ($FLOOR_COLUMNS, PRIMARY KEY (user_id, event_id)) WITHOUT ROWID;
     CREATE UNIQUE INDEX events_by_event_id ON events(event_id);" \
    "ON CONFLICT (event_id) DO NOTHING"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
