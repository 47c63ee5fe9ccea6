#!/usr/bin/env bash
# PostgreSQL benchmark: each abctl figure next to its reference, measured in the same run on a
# throwaway cluster (bench/pg_cluster.sh; fsync on, so commits are durable).
#
#   bench/postgres.sh                       # defaults below
#   EVENTS=200000 REPORT_USERS=200000 REPORT_EVENTS=600000 DURATION=5 ROUNDS=3 bench/postgres.sh
#
# 1. `abctl ingest` of EVENTS events into PostgreSQL, next to `psql \copy` of the same rows into a
#    table with the same columns and primary key (goal: at least 0.5x its rate), and next to the
#    floor: psql running abctl's own statements (staging COPY, insert, locks, read, facts upsert)
#    with the rows and facts precomputed (bench/pg_floor.py), what PostgreSQL itself needs for
#    that work on one connection; and the storage floor: the same batches only copied into a
#    staging table and inserted with ON CONFLICT DO NOTHING (storing events idempotently, no
#    facts), the most any ingest that deduplicates against stored events could reach.
#    CPU seconds of PostgreSQL and abctl are printed beside each.
# 2. POST /v1/events, 100 events per request, through two abctl serve nodes on one database
#    (two wrk, one per node, at once), next to one SQLite node under one wrk (goal: 50,000
#    durable events/s through the two nodes), with the CPU each part used per event.
# 3. POST /v1/assign on a PostgreSQL node next to a SQLite node, ROUNDS alternating runs of
#    DURATION s (goal: at least 0.5x its rate, p99 under 10 ms); then pgbench sending the
#    node's sticky query one user per round trip, the rate a node without coalescing could not pass.
# 4. `abctl report --format json` for REPORT_USERS exposed users from PostgreSQL next to SQLite
#    (goal: at most 2x its time); the two JSON outputs are compared byte for byte.
#
# 5. Sticky across nodes: for STICKY_USERS users in chorus-paywall-copy, assign on node B,
#    store an exposure to another arm through node A, assign on node B again: every answer must be
#    that arm with reason sticky (goal: all of them).
#
# SECTIONS (default 12345) picks which of them run.
#
# Needs wrk (installed from Debian when missing), python3, Debian's postgresql. Every server
# listens on 127.0.0.1 only; every run is bounded by DURATION.
set -euo pipefail
EVENTS=${EVENTS:-1000000}
REPORT_USERS=${REPORT_USERS:-1000000}
REPORT_EVENTS=${REPORT_EVENTS:-3000000}
DURATION=${DURATION:-6}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-32}
SECTIONS=${SECTIONS:-12345}
STICKY_USERS=${STICKY_USERS:-150}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

swift build -c release --product abctl 2>&1 | tail -1
ABCTL="$ROOT/.build/release/abctl"
WORK="$(mktemp -d /tmp/abctl-bench-pg.XXXXXX)"
chmod 755 "$WORK"
source bench/pg_cluster.sh
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
    pg_stop
    rm -rf "$WORK"
}
trap cleanup EXIT
pg_start "$WORK/pg"
echo "machine: $(nproc) cores, shared; load average $(cut -d' ' -f1-3 /proc/loadavg); $("$PG_BIN/postgres" --version)"

secs() { python3 -c 'import time; print(f"{time.time():.3f}")'; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
rate() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):,.0f}')" "$1" "$2"; }

# --- 1. ingest vs psql \copy, and the floor ---------------------------------------------------------
if [[ $SECTIONS == *1* ]]; then
python3 bench/gen_events.py --events "$EVENTS" --out "$WORK/events.ndjson"
python3 bench/pg_rows.py "$WORK/events.ndjson" > "$WORK/events.tsv"
ROWS=$(wc -l < "$WORK/events.tsv")
pg_createdb ingest_abctl; pg_createdb ingest_ref; pg_createdb ingest_floor; pg_createdb ingest_store
pg_psql -d ingest_ref -c 'CREATE TABLE events (user_id text COLLATE "C" NOT NULL, event_id text COLLATE "C" NOT NULL,
    type smallint NOT NULL, ts bigint NOT NULL, experiment text COLLATE "C", variant text COLLATE "C", revenue double precision,
    currency text, product_id text, copy_source text, copy_text text, copy_fallback_reason text, PRIMARY KEY (user_id, event_id))'
c0=$(pg_cpu); t0=$(secs); pg_psql -d ingest_ref -c "\\copy events FROM '$WORK/events.tsv'"; t1=$(secs); c1=$(pg_cpu)
REF_SECS=$(python3 -c "print(f'{$t1 - $t0:.2f}')"); REF_CPU=$(python3 -c "print(f'{$c1 - $c0:.2f}')")
c0=$(pg_cpu); t0=$(secs)
INGEST_OUT=$(/usr/bin/time -f "%U %S" -o "$WORK/ingest.time" "$ABCTL" ingest "$WORK/events.ndjson" --db "$PG_URL_BASE/ingest_abctl" --experiments Experiments)
t1=$(secs); c1=$(pg_cpu)
ABCTL_SECS=$(python3 -c "print(f'{$t1 - $t0:.2f}')"); ABCTL_PG_CPU=$(python3 -c "print(f'{$c1 - $c0:.2f}')")
ABCTL_CPU=$(awk '{printf "%.2f", $1 + $2}' "$WORK/ingest.time")
STORED=$(pg_psql -d ingest_abctl -c 'SELECT count(*) FROM events')
# The floor: the writer's statements run by psql on one connection, rows and facts precomputed
# (bench/pg_floor.py; the facts are the final ones of abctl's run).
printf '' | "$ABCTL" ingest - --db "$PG_URL_BASE/ingest_floor" > /dev/null   # the same schema, empty
pg_psql -d ingest_abctl -c "\\copy (SELECT user_id, experiment, variant, first_exposure_ts, trial_start_ts, first_paid_ts,
    first_converted_ts, first_cancel_ts, refunded_ts, net_revenue, copy_source, copy_fallback_reason, revenue_entries,
    crossed_over FROM facts) TO '$WORK/facts.tsv'"
python3 bench/pg_floor.py "$WORK/events.tsv" "$WORK/facts.tsv" "$WORK/floor" 8192 > "$WORK/floor.sql"
chmod -R a+rX "$WORK/floor"
c0=$(pg_cpu); t0=$(secs); pg_psql -d ingest_floor -f "$WORK/floor.sql" > /dev/null; t1=$(secs); c1=$(pg_cpu)
FLOOR_SECS=$(python3 -c "print(f'{$t1 - $t0:.2f}')"); FLOOR_CPU=$(python3 -c "print(f'{$c1 - $c0:.2f}')")
FLOOR_FACTS=$(pg_psql -d ingest_floor -c 'SELECT count(*) FROM facts')
# The storage floor: pg_floor.py's 8,192-row batches into a table with the same key, each one
# transaction of COPY into a staging table and INSERT … ON CONFLICT DO NOTHING in key order.
printf '' | "$ABCTL" ingest - --db "$PG_URL_BASE/ingest_store" > /dev/null
COLUMNS="user_id, event_id, type, ts, experiment, variant, revenue, currency, product_id, copy_source, copy_text, copy_fallback_reason"
{ echo "CREATE TEMPORARY TABLE staging (LIKE events) ON COMMIT DELETE ROWS;"
  for n in $(seq 0 $(( $(ls "$WORK"/floor/events-*.tsv | wc -l) - 1 ))); do   # pg_floor.py's batches, in order
      echo "BEGIN;"; echo "\\copy staging ($COLUMNS) FROM '$WORK/floor/events-$n.tsv'"
      echo "INSERT INTO events ($COLUMNS) SELECT $COLUMNS FROM staging ORDER BY user_id, event_id ON CONFLICT DO NOTHING;"
      echo "COMMIT;"
  done; } > "$WORK/store-floor.sql"
c0=$(pg_cpu); t0=$(secs); pg_psql -d ingest_store -f "$WORK/store-floor.sql" > /dev/null; t1=$(secs); c1=$(pg_cpu)
STORE_SECS=$(python3 -c "print(f'{$t1 - $t0:.2f}')"); STORE_CPU=$(python3 -c "print(f'{$c1 - $c0:.2f}')")
STORE_ROWS=$(pg_psql -d ingest_store -c 'SELECT count(*) FROM events')
echo "1. ingest $EVENTS events ($ROWS distinct; wall time, and CPU seconds of PostgreSQL and of abctl):"
echo "   psql \\copy (same columns and primary key):  $REF_SECS s, $(rate "$ROWS" "$REF_SECS") rows/s; PostgreSQL CPU $REF_CPU s"
echo "   floor: psql runs abctl's statements on one connection, rows and facts precomputed:"
echo "                                              $FLOOR_SECS s, $(rate "$ROWS" "$FLOOR_SECS") rows/s; PostgreSQL CPU $FLOOR_CPU s ($FLOOR_FACTS facts)"
echo "   storage floor: the same batches, COPY into staging + INSERT … ON CONFLICT DO NOTHING, no facts:"
echo "                                              $STORE_SECS s, $(rate "$ROWS" "$STORE_SECS") rows/s; PostgreSQL CPU $STORE_CPU s ($STORE_ROWS rows); / psql \\copy: $(ratio "$REF_SECS" "$STORE_SECS")x"
echo "   abctl ingest (COPY + facts, PostgreSQL):    $ABCTL_SECS s, $(rate "$ROWS" "$ABCTL_SECS") rows/s; PostgreSQL CPU $ABCTL_PG_CPU s, abctl CPU $ABCTL_CPU s ($INGEST_OUT; $STORED rows)"
echo "   ratio abctl / psql \\copy: $(ratio "$REF_SECS" "$ABCTL_SECS")x (goal >= 0.5x); floor / psql \\copy: $(ratio "$REF_SECS" "$FLOOR_SECS")x; abctl / floor: $(ratio "$FLOOR_SECS" "$ABCTL_SECS")x"
fi

# --- wrk scripts (as bench/http.sh) ----------------------------------------------------------------
cat > "$WORK/common.lua" <<'LUA'
local counter = 0
local thread_id = 0
local threads = {}
local prefix = os.getenv("WRK_PREFIX") or "p"
function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f non2xx=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
LUA
cat "$WORK/common.lua" - > "$WORK/assign.lua" <<'LUA'
function init(args) wrk.method = "POST"; wrk.headers["Content-Type"] = "application/json" end
function request()
  counter = counter + 1
  local body = '{"user_id":"bench-' .. prefix .. thread_id .. '-' .. counter ..
    '","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true},"variables":{"userName":"Ana"},"signals":{"companion":"dog"}}'
  return wrk.format(nil, "/v1/assign", nil, body)
end
LUA
cat "$WORK/common.lua" "$ROOT/bench/lib/events-request.lua" > "$WORK/events.lua"

start_node() {   # $1: --db value, $2: name; sets PORT
    "$ABCTL" serve --port 0 --host 127.0.0.1 --db "$1" --experiments "$ROOT/Experiments" > "$WORK/$2.out" 2>/dev/null &
    PIDS+=($!)
    for _ in $(seq 100); do grep -q "listening on" "$WORK/$2.out" 2>/dev/null && break; sleep 0.1; done
    PORT=$(grep -o '[0-9]*$' "$WORK/$2.out")
}
stop_nodes() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; PIDS=(); }
field() { echo "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }

# --- 2. events through two nodes vs one SQLite node ----------------------------------------------
if [[ $SECTIONS == *2* ]]; then
pg_createdb events_two
start_node "$PG_URL_BASE/events_two" a; PORT_A=$PORT
start_node "$PG_URL_BASE/events_two" b; PORT_B=$PORT
proc_cpu() {   # CPU seconds (user + system) of the processes $@
    python3 - "$@" <<'PY'
import os, sys
stats = [open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split() for p in sys.argv[1:]]
print("%.2f" % (sum(int(f[11]) + int(f[12]) for f in stats) / os.sysconf("SC_CLK_TCK")))
PY
}
c0=$(pg_cpu); n0=$(proc_cpu "${PIDS[@]}")
WRK_PREFIX=a wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$PORT_A" > "$WORK/wrk-a.txt" &
WRK_A=$!
WRK_PREFIX=b wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$PORT_B" > "$WORK/wrk-b.txt"
wait "$WRK_A"
c1=$(pg_cpu); n1=$(proc_cpu "${PIDS[@]}")
stop_nodes
PG_EVENTS=$(pg_psql -d events_two -c 'SELECT count(*) FROM events')
PER_EVENT=$(python3 -c "print(f'PostgreSQL {($c1 - $c0) / $PG_EVENTS * 1e6:.1f} us, the two nodes {($n1 - $n0) / $PG_EVENTS * 1e6:.1f} us CPU per event')")
start_node "$WORK/events.sqlite" s
WRK_PREFIX=s wrk -t2 -c"$((CONNECTIONS * 2))" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$PORT" > "$WORK/wrk-s.txt"
stop_nodes
SQLITE_EVENTS=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from events').fetchone()[0])" "$WORK/events.sqlite")
echo "2. POST /v1/events, 100 per request, ${DURATION} s, durable (stored rows counted in the database):"
echo "   one SQLite node (wrk -t2 -c$((CONNECTIONS * 2))):            $(rate "$SQLITE_EVENTS" "$DURATION") events/s; $(grep RESULT "$WORK/wrk-s.txt")"
echo "   two PostgreSQL nodes (wrk -t1 -c$CONNECTIONS each): $(rate "$PG_EVENTS" "$DURATION") events/s (goal 50,000); $PER_EVENT"
echo "     node a: $(grep RESULT "$WORK/wrk-a.txt")"
echo "     node b: $(grep RESULT "$WORK/wrk-b.txt")"
fi

# --- 3. assign: PostgreSQL node vs SQLite node ----------------------------------------------------
if [[ $SECTIONS == *3* ]]; then
pg_createdb assign_pg
start_node "$PG_URL_BASE/assign_pg" pgnode; PG_PORT_NODE=$PORT
start_node "$WORK/assign.sqlite" sqlnode; SQL_PORT_NODE=$PORT
PG_RES=""; SQL_RES=""
for round in $(seq "$ROUNDS"); do
    line=$(WRK_PREFIX=s$round wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/assign.lua" "http://127.0.0.1:$SQL_PORT_NODE" | grep RESULT)
    SQL_RES="$SQL_RES$line;"; echo "   round $round sqlite   $line"
    line=$(WRK_PREFIX=p$round wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/assign.lua" "http://127.0.0.1:$PG_PORT_NODE" | grep RESULT)
    PG_RES="$PG_RES$line;"; echo "   round $round postgres $line"
done
stop_nodes
python3 - "$SQL_RES" "$PG_RES" <<'PY'
import statistics, sys
def runs(arg): return [{k: float(v) for k, v in (p.split("=") for p in l.split()[1:])} for l in arg.split(";") if l]
s, p = runs(sys.argv[1]), runs(sys.argv[2])
ratios = [b["rps"] / a["rps"] for a, b in zip(s, p)]
print(f"3. POST /v1/assign (3 experiments, sticky lookups read the database on the PostgreSQL node):")
print(f"   SQLite node:     median {statistics.median(r['rps'] for r in s):,.0f} req/s, p99 {statistics.median(r['p99_ms'] for r in s):.2f} ms")
print(f"   PostgreSQL node: median {statistics.median(r['rps'] for r in p):,.0f} req/s, p99 {statistics.median(r['p99_ms'] for r in p):.2f} ms")
print(f"   ratio per round: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}x (goal >= 0.5x, p99 < 10 ms)")
PY
# The floor of one lookup per round trip on this machine: pgbench sending the node's sticky query
# for one user at a time (no HTTP, no wrk), 4 clients on 2 threads.
cat > "$WORK/sticky.sql" <<'SQL'
\set n random(1, 1000000000)
SELECT user_id, experiment, variant FROM facts WHERE user_id = ANY(ARRAY['bench-' || :n]) AND experiment = ANY('{chorus-paywall-copy}'::text[]);
SQL
FLOOR=$(PGPASSWORD=bench "$PG_BIN/pgbench" -n -M prepared -c 4 -j 2 -T "$DURATION" -f "$WORK/sticky.sql" \
    -h 127.0.0.1 -p "$PG_PORT" -U postgres assign_pg 2>&1 | grep -o 'tps = [0-9.]*' | cut -d' ' -f3)
echo "   pgbench, one sticky lookup per round trip (-c 4 -j 2, ${DURATION} s): $(rate "$FLOOR" 1) lookups/s"
fi

# --- 4. report: PostgreSQL vs SQLite --------------------------------------------------------------
if [[ $SECTIONS == *4* ]]; then
python3 bench/gen_report_events.py --users "$REPORT_USERS" --events "$REPORT_EVENTS" > "$WORK/report.ndjson"
pg_createdb report_pg
"$ABCTL" ingest "$WORK/report.ndjson" --db "$PG_URL_BASE/report_pg" --experiments Experiments > /dev/null
"$ABCTL" ingest "$WORK/report.ndjson" --db "$WORK/report.sqlite" --experiments Experiments > /dev/null
pg_psql -d report_pg -c 'VACUUM ANALYZE' > /dev/null
export ABCTL_NOW=2026-12-31T00:00:00Z
SQL_T=(); PG_T=()
for round in 1 2 3; do
    t0=$(secs); "$ABCTL" report chorus-paywall-copy --db "$WORK/report.sqlite" --experiments Experiments --format json > "$WORK/report-sqlite.json"; t1=$(secs)
    SQL_T+=("$(python3 -c "print(f'{$t1 - $t0:.3f}')")")
    t0=$(secs); "$ABCTL" report chorus-paywall-copy --db "$PG_URL_BASE/report_pg" --experiments Experiments --format json > "$WORK/report-pg.json"; t1=$(secs)
    PG_T+=("$(python3 -c "print(f'{$t1 - $t0:.3f}')")")
done
SAME=$(cmp -s "$WORK/report-sqlite.json" "$WORK/report-pg.json" && echo "byte-identical" || echo "DIFFERENT")
python3 - "${SQL_T[*]}" "${PG_T[*]}" "$REPORT_USERS" "$REPORT_EVENTS" "$SAME" <<'PY'
import statistics, sys
s = [float(x) for x in sys.argv[1].split()]; p = [float(x) for x in sys.argv[2].split()]
print(f"4. abctl report --format json, {int(sys.argv[3]):,} users, {int(sys.argv[4]):,} events (3 alternating runs each):")
print(f"   SQLite:     {', '.join(f'{x:.2f}' for x in s)} s (median {statistics.median(s):.2f})")
print(f"   PostgreSQL: {', '.join(f'{x:.2f}' for x in p)} s (median {statistics.median(p):.2f})")
print(f"   ratio PostgreSQL / SQLite: {statistics.median(p) / statistics.median(s):.2f}x (goal <= 2x); report JSON {sys.argv[5]}")
PY
fi
# --- 5. sticky across nodes ----------------------------------------------------------------------
if [[ $SECTIONS == *5* ]]; then
pg_createdb sticky_two
start_node "$PG_URL_BASE/sticky_two" sa; PORT_A=$PORT
start_node "$PG_URL_BASE/sticky_two" sb; PORT_B=$PORT
python3 - "$PORT_A" "$PORT_B" "$STICKY_USERS" <<'PY'
import json, sys, time, urllib.request, uuid
a, b, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body.encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r: return r.status, json.loads(r.read() or b"null")
def assign(user):
    body = {"user_id": user, "attributes": {"platform": "ios", "country": "US", "app_version": "2.3.0", "new_user": True},
            "experiments": ["chorus-paywall-copy"]}
    return post(b, "/v1/assign", json.dumps(body))[1]["assignments"][0]
tried = held = ok = 0
run = uuid.uuid4().hex[:8]
while tried < wanted:
    user = f"sticky-{run}-{tried + held}"
    first = assign(user)
    if not first["in_experiment"]: held += 1; continue   # outside the namespace: nothing to stick
    tried += 1
    other = next(v for v in ("control", "name", "ai") if v != first["variant"])
    ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    event = {"event_id": f"e-{user}", "type": "exposure", "user_id": user, "experiment": "chorus-paywall-copy", "variant": other, "ts": ts}
    status, _ = post(a, "/v1/events", json.dumps(event))
    after = assign(user)
    ok += status == 200 and after["variant"] == other and after["reason"] == "sticky"
print(f"5. sticky across nodes: {ok}/{wanted} users exposed through node A got that arm (reason sticky) on node B at once (goal: all)")
PY
stop_nodes
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
