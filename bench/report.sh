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
#
# Three reports alternate, each three times, in the same run:
#   reference  the abctl of REF (default cb1df89, the last commit before the metric table),
#              built from `git archive` into $WORK/ref, on its own copy of the store;
#   plain      this abctl, the experiment as shipped;
#   horizons   this abctl, the experiment with two horizon metrics (revenue_per_user_d14,
#              paid_conversion_d7) and a 99th-percentile revenue cap.
# The issue's goals: horizons under 2 s, and within 1.3x of the reference.
set -eu
USERS=${1:-1000000}
EVENTS=${2:-5000000}
REF=${REF:-cb1df89}
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

# The reference abctl, its own experiment files and its store (its schema is older, so it gets
# its own copy of the events).
REFDIR=$WORK/ref-$REF
if [ ! -x "$REFDIR/.build/release/abctl" ]; then
  rm -rf "$REFDIR" && mkdir -p "$REFDIR"
  git archive "$REF" | tar -x -C "$REFDIR"
  (cd "$REFDIR" && swift build -c release --product abctl >/dev/null)
fi
REFDB=$WORK/report-ref-$REF-$USERS-$EVENTS.sqlite
if [ ! -f "$REFDB" ]; then
  [ -f "$DATA" ] || python3 bench/gen_report_events.py --users "$USERS" --events "$EVENTS" > "$DATA"
  rm -f "$REFDB" "$REFDB-wal" "$REFDB-shm"
  "$REFDIR/.build/release/abctl" ingest "$DATA" --db "$REFDB" --experiments "$REFDIR/Experiments"
fi

# The experiment with two horizon metrics and a cap.
HORIZONS=$WORK/experiments-horizons
rm -rf "$HORIZONS" && cp -r Experiments "$HORIZONS"
python3 - "$HORIZONS/chorus-paywall-copy.json" <<'PY'
import json, sys
path = sys.argv[1]
e = json.load(open(path))
e["metrics"]["secondary"] = ["revenue_per_user_d14", "paid_conversion_d7"]
e["metrics"]["revenue_cap"] = {"percentile": 0.99}
json.dump(e, open(path, "w"), indent=2)
PY

# Wall time and the process's CPU time (user + sys): on a busy machine wall time includes waiting for a core.
run() {  # name binary db experiments
  TIMEFORMAT="$1 run $i: %R s wall, %U s user, %S s sys"
  time (ABCTL_NOW=2026-12-31T00:00:00Z "$2" report chorus-paywall-copy --db "$3" --experiments "$4" --format json > "$WORK/report-$1.json")
}
for i in 1 2 3; do
  run reference "$REFDIR/.build/release/abctl" "$REFDB" "$REFDIR/Experiments"
  run plain "$ABCTL" "$DB" Experiments
  run horizons "$ABCTL" "$DB" "$HORIZONS"
done
python3 - "$WORK" <<'PY'
import json, sys
for name in ["reference", "plain", "horizons"]:
    r = json.load(open(f"{sys.argv[1]}/report-{name}.json"))
    names = sorted(r["variants"][0]["metrics"])
    print(f"{name}: {r['users']} users, verdict {r['decision']['verdict']}, metrics {', '.join(names)}")
PY
