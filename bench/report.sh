#!/usr/bin/env bash
# Report benchmark: `abctl report` time for USERS exposed users and EVENTS events, beside a bare
# `sqlite3` aggregate over the facts columns a plain report reads.
#
#   bench/report.sh [USERS] [EVENTS]        # default 1000000 5000000
#   RUNS=5 REF=641a5b5 bench/report.sh
#
# Builds release, generates the events (bench/gen_report_events.py: exposures carry platform and
# country), stores them with `abctl ingest` (bench/lib/report-store.sh, shared with
# bench/safeguards.sh; kept between runs), then times `abctl report --format json` of the experiment.
# A report reads one facts row per user, so its time grows with users, not events.
#
# These alternate, RUNS times each (default 3), in the same run:
#   sqlite3    the sqlite3 shell's one aggregate over the facts columns a plain report reads
#              (PLAIN_NUMBERS and PLAIN_TEXTS below: every column of FactColumns but placement and
#              attributes), on the same store: the floor for reading them;
#   walk       facts-walk-bench (bench/FactsWalkBenchmark): the plain report's statement and, per row,
#              the C calls per column its walk makes, nothing else: the floor for reading them
#              through SQLite's C API, one call per column and row;
#   reference  only with REF: the abctl of commit REF, built from `git archive`, on its own store of
#              the same events;
#   plain      this abctl, the experiment as shipped;
#   horizons   this abctl, two horizon metrics (revenue_per_user_d14, paid_conversion_d7) and a
#              99th-percentile revenue cap;
#   by         this abctl, `--by country --by platform` (segment tables: attributes read too);
#   forecast   this abctl, `revenue_per_user_forecast_d365` as a secondary metric (the forecast's
#              comparison from its bootstrap draws; every report computes the forecast).
# Each line gives wall and user + sys CPU; the summary gives medians of CPU seconds and the goals:
# plain within 1.3x of the sqlite3 aggregate and under 1.0 s, by within 2x of plain, forecast adding
# under 0.3 s to plain; with REF, plain against the reference.
set -eu
USERS=${1:-1000000}
EVENTS=${2:-5000000}
REF=${REF:-}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. bench/lib/report-store.sh
swift build -c release --product abctl >/dev/null
swift build -c release --product facts-walk-bench >/dev/null
ABCTL=$ROOT/.build/release/abctl
WORK=$STORE_DIR/report
mkdir -p "$WORK"
report_events "$USERS" "$EVENTS"
report_store "$ABCTL" report Experiments
echo "store: $(sqlite3 "$DB" 'SELECT COUNT(*) FROM events') events, $(sqlite3 "$DB" "SELECT COUNT(*) FROM facts WHERE experiment='chorus-paywall-copy'") users"
THIS_DB=$DB
if [ -n "$REF" ]; then
  reference_abctl "$REF"
  report_store "$REF_ABCTL" "reference-$REF" "$REF_DIR/Experiments"
  REF_DB=$DB
fi

# What a plain report reads of each facts row, over the rows it reads: the experiment's users first
# exposed before the as-of moment. The columns are FactColumns' (Sources/Events/Columns/FactColumns.swift,
# the list both stores' reads are made from) but those of the attributes part, which only segments
# and post-stratification read, and the experiment, which the walk of one knows: total() of each
# number, the length of each text and blob.
FACT_COLUMNS=$(grep -oE 'FactColumn\("[a-z_]+", \.[a-z]+[^)]*\)' Sources/Events/Columns/FactColumns.swift \
  | grep -v -e 'part: \.attributes' -e '"experiment"')
PLAIN_NUMBERS=$(echo "$FACT_COLUMNS" | grep -E '\.(integer|real|flag),' | sed -E 's/FactColumn\("([a-z_]+)".*/\1/' | tr '\n' ' ')
PLAIN_TEXTS=$(echo "$FACT_COLUMNS" | grep -E '\.(text|blob),' | sed -E 's/FactColumn\("([a-z_]+)".*/\1/' | tr '\n' ' ')
AS_OF_MICROS=$(( $(date -u -d 2026-12-31T00:00:00Z +%s) * 1000000 ))
AGGREGATE="SELECT count(*)$(for c in $PLAIN_NUMBERS; do printf ', total(%s)' "$c"; done)$(for c in $PLAIN_TEXTS; do printf ', total(length(%s))' "$c"; done) FROM facts WHERE experiment = 'chorus-paywall-copy' AND first_exposure_ts < $AS_OF_MICROS;"
echo "sqlite3 aggregate: $AGGREGATE"

# The experiment with two horizon metrics and a cap, and with the forecast as a secondary metric.
variant_folder() {  # name python-edit
  rm -rf "$WORK/experiments-$1" && cp -r Experiments "$WORK/experiments-$1"
  python3 - "$WORK/experiments-$1/chorus-paywall-copy.json" "$2" <<'PY'
import json, sys
path = sys.argv[1]
e = json.load(open(path))
exec(sys.argv[2])
json.dump(e, open(path, "w"), indent=2)
PY
}
variant_folder horizons 'e["metrics"]["secondary"] = ["revenue_per_user_d14", "paid_conversion_d7"]; e["metrics"]["revenue_cap"] = {"percentile": 0.99}'
variant_folder forecast 'e["metrics"]["secondary"] = ["revenue_per_user_forecast_d365"]'

echo "uptime: $(uptime)"
# Wall time and the process's CPU time (user + sys): on a busy machine wall time includes waiting for a core.
timed() {  # name command...: runs the command, its output in $WORK/report-NAME.json
  local name=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$@" > "$WORK/report-$name.json"
  read -r wall user sys < "$WORK/time.txt"
  echo "$name run $i: $wall s wall, $user s user, $sys s sys"
  echo "$name $wall $(awk "BEGIN { print $user + $sys }")" >> "$WORK/times.txt"
}
run() {  # name binary db experiments [arguments]
  local name=$1 bin=$2 db=$3 exps=$4; shift 4
  ABCTL_NOW=2026-12-31T00:00:00Z timed "$name" "$bin" report chorus-paywall-copy --db "$db" --experiments "$exps" --format json "$@"
}
# One untimed plain report first: it migrates a store an older abctl made (the sqlite3 aggregate
# names today's columns) and brings the file into the page cache for every timed run alike.
ABCTL_NOW=2026-12-31T00:00:00Z "$ABCTL" report chorus-paywall-copy --db "$THIS_DB" --experiments Experiments --format json > /dev/null
rm -f "$WORK/times.txt"
for i in $(seq "$RUNS"); do
  timed sqlite3 sqlite3 -readonly "$THIS_DB" "$AGGREGATE"
  timed walk "$ROOT/.build/release/facts-walk-bench" --db "$THIS_DB" --mode calls --until 2026-12-31T00:00:00Z
  [ -z "$REF" ] || run reference "$REF_ABCTL" "$REF_DB" "$REF_DIR/Experiments"
  run plain "$ABCTL" "$THIS_DB" Experiments
  run horizons "$ABCTL" "$THIS_DB" "$WORK/experiments-horizons"
  run by "$ABCTL" "$THIS_DB" Experiments --by country --by platform
  run forecast "$ABCTL" "$THIS_DB" "$WORK/experiments-forecast"
done
echo "uptime: $(uptime)"
python3 - "$WORK" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
print("sqlite3 aggregate:", open(f"{work}/report-sqlite3.json").read().strip())
times = {}
for line in open(f"{work}/times.txt"):
    name, wall, cpu = line.split()
    times.setdefault(name, []).append((float(wall), float(cpu)))
for name in ["reference", "plain", "horizons", "by", "forecast"]:
    if name not in times: continue
    r = json.load(open(f"{work}/report-{name}.json"))
    names = sorted(r["variants"][0]["metrics"])
    segments = ", ".join(f"{d}: {len(c['cells'])} cells" for d, c in (r.get("segments") or {}).items())
    print(f"{name}: {r['users']} users, verdict {r['decision']['verdict']}, metrics {', '.join(names)}" + (f"; segments {segments}" if segments else ""))
med = {n: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for n, t in times.items()}
print("medians (wall, user + sys CPU) of", len(times["plain"]), "runs each:")
for n, (w, c) in med.items():
    print(f"  {n:10} {w:6.2f} s wall  {c:6.2f} s CPU")
ratio = lambda a, b: med[a][1] / med[b][1]
met = lambda ok: "met" if ok else "NOT met"
print(f"plain / sqlite3 aggregate: {ratio('plain', 'sqlite3'):.2f}x CPU ({med['plain'][1]:.2f} s against {med['sqlite3'][1]:.2f} s); goal <= 1.3x: {met(ratio('plain', 'sqlite3') <= 1.3)}; goal plain under 1.0 s CPU: {met(med['plain'][1] < 1.0)}")
print(f"walk / sqlite3 aggregate: {ratio('walk', 'sqlite3'):.2f}x CPU (reading the columns, one C call each, and nothing else); plain / walk: {ratio('plain', 'walk'):.2f}x")
if "reference" in med:
    print(f"plain / reference: {ratio('plain', 'reference'):.2f}x CPU ({med['plain'][0] / med['reference'][0]:.2f}x wall)")
    print(f"horizons / reference: {ratio('horizons', 'reference'):.2f}x CPU")
print(f"by country, platform / plain: {ratio('by', 'plain'):.2f}x CPU ({med['by'][0] / med['plain'][0]:.2f}x wall); goal <= 2x: {met(ratio('by', 'plain') <= 2)}")
extra = med['forecast'][1] - med['plain'][1]
print(f"forecast secondary - plain: {extra:+.2f} s CPU ({med['forecast'][0] - med['plain'][0]:+.2f} s wall); goal < 0.3 s: {met(extra < 0.3)}")
PY
