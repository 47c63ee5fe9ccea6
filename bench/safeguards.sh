#!/usr/bin/env bash
# Safeguard evaluation benchmark: one evaluation of an experiment with USERS exposed users.
#
#   bench/safeguards.sh [USERS] [EVENTS]        # default 1000000 5000000
#
# Builds release, generates events with bench/gen_report_events.py (chorus-paywall-copy, three
# arms) and stores them with `abctl ingest` (bench/lib/report-store.sh: the same store as
# bench/report.sh's, kept between runs), gives the experiment `safeguards` on three metrics
# (day0_cancel_rate, trial_cancel_rate, refund_rate: 3 metrics x 2 treatment arms = 6 tests),
# then measures in the same run:
#   check    `abctl safeguards check --format json` (a process: open the store, load the
#            experiments, one evaluation, print), RUNS times: wall and user + sys CPU;
#   serve    `abctl serve` with check_minutes 0.05 (an evaluation every 3 s): the server's own
#            gauges abctl_safeguard_last_evaluation_seconds and _cpu_seconds (the evaluation alone,
#            wall and its thread's CPU time), RUNS x 3 samples;
#   report   `abctl report --format json` on the same store, for scale (it reads the same facts).
# The issue's goal: one evaluation of 1,000,000 users under 1 s.
set -eu
USERS=${1:-1000000}
EVENTS=${2:-5000000}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NOW=2026-12-31T00:00:00Z
cd "$ROOT"
. bench/lib/report-store.sh
swift build -c release --product abctl >/dev/null
ABCTL=$ROOT/.build/release/abctl
WORK=$STORE_DIR/safeguards
mkdir -p "$WORK"
report_events "$USERS" "$EVENTS"
report_store "$ABCTL" report Experiments
# Evaluations may record stops: they go to a copy, so the shared store stays as ingest left it.
cp "$DB" "$WORK/guarded.sqlite"; rm -f "$WORK/guarded.sqlite-wal" "$WORK/guarded.sqlite-shm"
DB=$WORK/guarded.sqlite
echo "store: $(sqlite3 "$DB" "SELECT COUNT(*) FROM facts WHERE experiment='chorus-paywall-copy'") users of chorus-paywall-copy"

GUARDED=$WORK/experiments
rm -rf "$GUARDED" && cp -r Experiments "$GUARDED"
python3 - "$GUARDED/chorus-paywall-copy.json" <<'PY'
import json, sys
path = sys.argv[1]
e = json.load(open(path))
e["safeguards"] = {"metrics": ["day0_cancel_rate", "trial_cancel_rate", "refund_rate"], "min_users": 300, "check_minutes": 0.05}
json.dump(e, open(path, "w"), indent=2)
PY
# Other experiments of the folder have no facts in this store: only this one is evaluated for long.

echo "uptime: $(uptime)"
for i in $(seq "$RUNS"); do
  TIMEFORMAT="check run $i: %R s wall, %U s user, %S s sys"
  time (ABCTL_NOW=$NOW "$ABCTL" safeguards check --db "$DB" --experiments "$GUARDED" --format json > "$WORK/check.json" || true)
done
python3 - "$WORK/check.json" <<'PY'
import json, sys
body = json.load(open(sys.argv[1]))
for f in body["findings"]:
    x = f["figures"] or {}
    print(f"  {f['arm']:8} {f['metric']:18} exposed {f['arm_exposed']:7} mature arm {x.get('arm_users', '-')} control {x.get('control_users', '-')} harmful {f['harmful']}")
PY

TIMEFORMAT="report: %R s wall, %U s user, %S s sys"
time (ABCTL_NOW=$NOW "$ABCTL" report chorus-paywall-copy --db "$DB" --experiments "$GUARDED" --format json > /dev/null)

ABCTL_NOW=$NOW "$ABCTL" serve --port 0 --db "$DB" --experiments "$GUARDED" > "$WORK/serve.out" 2> "$WORK/serve.err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
seen=0
for _ in $(seq 200); do
  sleep 1
  metrics=$(curl -s "http://127.0.0.1:$PORT/metrics")
  n=$(echo "$metrics" | awk '$1 == "abctl_safeguard_evaluations_total" { print $2 }')
  if [ "${n:-0}" -gt "$seen" ]; then
    seen=$n
    echo "serve evaluation $n: $(echo "$metrics" | awk '$1 == "abctl_safeguard_last_evaluation_seconds" { print $2 }') s wall, $(echo "$metrics" | awk '$1 == "abctl_safeguard_last_evaluation_cpu_seconds" { print $2 }') s CPU"
  fi
  [ "$seen" -ge $((RUNS * 3)) ] && break
done
echo "uptime: $(uptime)"
