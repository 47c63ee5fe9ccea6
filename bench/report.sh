#!/usr/bin/env bash
# Report benchmark: `abctl report` time for USERS exposed users and EVENTS events.
#
#   bench/report.sh [USERS] [EVENTS]        # default 1000000 5000000
#
# Builds release, generates the events (bench/gen_report_events.py), stores them with
# `abctl ingest` (the store's bulk path, durability as the CLI sets it), then times
# `abctl report --format json` for the experiment a few times. A report reads one facts row
# per user, so its time grows with users, not events: run it with the same USERS and a
# different EVENTS to see.
set -eu
USERS=${1:-1000000}
EVENTS=${2:-5000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-$ROOT/.build/bench-report}
mkdir -p "$WORK"
cd "$ROOT"
swift build -c release --product abctl >/dev/null
ABCTL=$ROOT/.build/release/abctl
DATA=$WORK/events-$USERS-$EVENTS.ndjson
DB=$WORK/report-$USERS-$EVENTS.sqlite
if [ ! -f "$DB" ]; then
  [ -f "$DATA" ] || python3 bench/gen_report_events.py --users "$USERS" --events "$EVENTS" > "$DATA"
  rm -f "$DB" "$DB-wal" "$DB-shm"
  start=$(date +%s.%N)
  "$ABCTL" ingest "$DATA" --db "$DB" --experiments Experiments
  end=$(date +%s.%N)
  echo "ingest: $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
fi
echo "store: $(sqlite3 "$DB" 'SELECT COUNT(*) FROM events') events, $(sqlite3 "$DB" "SELECT COUNT(*) FROM facts WHERE experiment='chorus-paywall-copy'") users"
# Wall time and the process's CPU time (user + sys): on a busy machine wall time includes waiting for a core.
for i in 1 2 3; do
  TIMEFORMAT="report run $i: %R s wall, %U s user, %S s sys"
  time (ABCTL_NOW=2026-12-31T00:00:00Z "$ABCTL" report chorus-paywall-copy --db "$DB" --experiments Experiments --format json > "$WORK/report.json")
done
python3 -c "import json,sys; r=json.load(open('$WORK/report.json')); print('report users:', r['users'], 'verdict:', r['decision']['verdict'])"
