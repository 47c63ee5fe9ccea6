#!/usr/bin/env bash
# HTTP benchmark of `abctl serve` on loopback, next to nginx serving a fixed JSON body in the same run.
#
#   bench/http.sh            # defaults: 10 rounds of 3 s runs each, then 6 s runs; 64 connections, 2 wrk threads
#   ROUNDS=5 ROUND_SECONDS=6 DURATION=6 CONNECTIONS=64 bench/http.sh
#
# 1. POST /v1/assign with the 3 running experiments of Experiments/ (a new user id per request),
#    against nginx answering the same requests with a fixed body of the same size, in ROUNDS
#    alternating runs of ROUND_SECONDS (nginx, abctl, nginx, ...): on a shared 2-core machine one
#    pair of runs moves by 10% or more, so each round's ratio is printed and the median judged;
#    many short pairs follow the machine's drifting load more closely than a few long ones.
#    Goals: >= 85% of nginx's requests per second, p99 < 5 ms. Then bench/mhd_fixed.c, a bare
#    libmicrohttpd server set up as abctl's (fixed body, no work), shows the HTTP layer's own ceiling.
#    In the same rounds, the same abctl server answers POST /v1/assign with one experiment
#    ("experiments": ["chorus-paywall-copy"]) and with a placement ("placement": "onboarding_end",
#    whose audience for these attributes shows that experiment): goal placement >= 0.95x one experiment.
#    Also in the same rounds, right after the plain abctl run, a second abctl server whose experiments
#    have `safeguards` (day0_cancel_rate, trial_cancel_rate, refund_rate; checked every minute, so
#    evaluations of the users the rounds expose happen during the runs): goal >= 0.95x the same
#    requests with safeguards off.
#    And a third abctl server whose products.json has storefronts (JP, DE, FR, GB, KR) answers
#    the same request with "country":"JP" (a storefront: its answers, rendered at load) and with no
#    country (the default storefront): goal JP within 5% of no country, by the median of the rounds.
#    And a fourth abctl server whose three running experiments are bandits (`allocation`:
#    new users drawn with the period's weights, answers carrying `allocation_period`) answers the
#    plain request, run before the plain server on odd rounds and after it on even ones: goal
#    bandits within 5% of fixed weights, by the median of the rounds.
#    And a fifth abctl server whose --notify-url is a receiver that accepts and never answers (its
#    notifications, `no_data` of the experiments nobody is exposed to, are each cut at 10 s and
#    retried) answers the plain request: goal /v1/assign p99 while a receiver hangs within 10% (or
#    0.5 ms) of the plain server's, by the median of the rounds.
# 2. POST /v1/events with 100 events per request (unique ids; synchronous=FULL, so durable).
#    Goal: >= 100,000 events per second, counted from the server's own metrics (stored events).
# 3. Assign's slowest answer while reports run: a server on a copy of bench/report.sh's store
#    (bench/gen_report_events.py: REPORT_USERS exposed users of chorus-paywall-copy, default
#    1,000,000, and REPORT_EVENTS events, default 5,000,000; made once and kept in
#    .build/bench-store), its clock at the data's end, answers POST /v1/assign for REPORT_SECONDS
#    (default 10) alone, then while REPORT_LOOPS loops (default 3: one more than a node's bound of 2
#    reports at once) each ask GET /v1/experiments/chorus-paywall-copy/report again as soon as they
#    are answered (0.1 s after a 503). Prints max and p99 of assign and the reports answered 200 and
#    refused 503. Goal: assign's max under 150 ms while reports run (they run on the report threads,
#    never on a thread answering requests).
#
# Installs wrk and nginx from Debian when missing. Every server listens on 127.0.0.1 only and every
# run is bounded by ROUND_SECONDS or DURATION. Needs a release build (built here).
set -euo pipefail

DURATION="${DURATION:-6}"
ROUNDS="${ROUNDS:-10}"
ROUND_SECONDS="${ROUND_SECONDS:-3}"
CONNECTIONS="${CONNECTIONS:-64}"
REPORT_USERS="${REPORT_USERS:-1000000}"
REPORT_EVENTS="${REPORT_EVENTS:-5000000}"
REPORT_SECONDS="${REPORT_SECONDS:-10}"
REPORT_LOOPS="${REPORT_LOOPS:-3}"
WRK_THREADS="${WRK_THREADS:-2}"
SERVER_THREADS="${SERVER_THREADS:-}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK_PREFIX="abctl-bench" BENCH_TOOLS="wrk nginx curl"
. "$ROOT/bench/lib/http-setup.sh"

start_abctl() {   # $1: database file, $2: experiments folder (default Experiments/), then more serve options
  local args=(serve --port 0 --host 127.0.0.1 --db "$1" --experiments "${2:-$ROOT/Experiments}")
  shift; [ $# -gt 0 ] && shift
  args+=("$@")
  [ -n "$SERVER_THREADS" ] && args+=(--threads "$SERVER_THREADS")
  "$ABCTL" "${args[@]}" >"$WORK/serve.out" 2>/dev/null &
  SERVER_PID=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break
    sleep 0.1
  done
  ABCTL_PORT="$(grep -o '[0-9]*$' "$WORK/serve.out")"
}

# The same experiments with safeguards on every running one.
cp -r "$ROOT/Experiments" "$WORK/guarded"
python3 - "$WORK/guarded" <<'PY'
import glob, json, sys
for path in glob.glob(f"{sys.argv[1]}/*.json"):
    e = json.load(open(path))
    if not isinstance(e, dict) or e.get("status") != "running" or "variants" not in e:
        continue
    e["safeguards"] = {"metrics": ["day0_cancel_rate", "trial_cancel_rate", "refund_rate"], "min_users": 300, "check_minutes": 1}
    json.dump(e, open(path, "w"), indent=2)
PY

stop_abctl() {
  kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""
}

metric() {   # $1: metric line prefix
  curl -s "http://127.0.0.1:$ABCTL_PORT/metrics" | grep -F "$1" | awk '{print $2}'
}

# The same experiments with storefronts in products.json.
cp -r "$ROOT/Experiments" "$WORK/storefronts"
python3 "$ROOT/bench/lib/storefront-products.py" "$WORK/storefronts/products.json"

# The same experiments with every running one (not the holdout) a bandit. Each is sticky
# (the default), has a start and no rollout, as a bandit needs; 24-hour periods from the start, so
# the lease holder records the periods since then when it starts.
cp -r "$ROOT/Experiments" "$WORK/bandits"
python3 - "$WORK/bandits" <<'PY'
import glob, json, sys
for path in glob.glob(f"{sys.argv[1]}/*.json"):
    e = json.load(open(path))
    if not isinstance(e, dict) or e.get("status") != "running" or "variants" not in e:
        continue
    e["allocation"] = {"type": "bandit", "reward": "trial_start_rate", "update_hours": 24, "min_share": 0.05, "burn_in_users": 200}
    json.dump(e, open(path, "w"), indent=2)
PY

# --- wrk scripts ---------------------------------------------------------------------------------
# What every script shares: a per-thread id (request ids stay unique) and the RESULT line.
cp "$ROOT/bench/lib/wrk-common.lua" "$WORK/common.lua"

cat "$WORK/common.lua" "$ROOT/bench/lib/assign-request.lua" >"$WORK/assign.lua"

# The same request naming one experiment, and naming a placement whose audience shows that experiment.
for form in one placement; do
  if [ "$form" = one ]; then member='"experiments":["chorus-paywall-copy"]'; else member='"placement":"onboarding_end"'; fi
  sed -e "s/\"signals\":{\"companion\":\"dog\"}}'/\"signals\":{\"companion\":\"dog\"},$member}'/" "$WORK/assign.lua" >"$WORK/assign-$form.lua"
  grep -qF "$member" "$WORK/assign-$form.lua" || { echo "bench: could not write assign-$form.lua" >&2; exit 1; }
done

# The plain request with "country":"JP" (a storefront) and with no country.
sed -e 's/"country":"US"/"country":"JP"/' "$WORK/assign.lua" >"$WORK/assign-jp.lua"
sed -e 's/"country":"US",//' "$WORK/assign.lua" >"$WORK/assign-nocountry.lua"
grep -qF '"country":"JP"' "$WORK/assign-jp.lua" && ! grep -qF country "$WORK/assign-nocountry.lua" || { echo "bench: could not write the storefront scripts" >&2; exit 1; }

cat "$WORK/common.lua" "$ROOT/bench/lib/events-request.lua" >"$WORK/events.lua"

echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. assign vs nginx --------------------------------------------------------------------------
start_abctl "$WORK/assign.sqlite"
SAMPLE="$(curl -s -X POST "http://127.0.0.1:$ABCTL_PORT/v1/assign" -H 'Content-Type: application/json' \
  -d '{"user_id":"bench-sample","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}}')"
echo "bench: sample /v1/assign answer (${#SAMPLE} bytes): ${SAMPLE:0:160}..."

NGINX_PORT="$(free_port)"
mkdir -p "$WORK/nginx/logs"
# The same bytes, less '$' (nginx would read it as a variable) and quotes nginx cannot hold.
printf '%s' "$SAMPLE" | tr "\$'" "S " >"$WORK/nginx/body.json"
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_buffer_size 64k;
  server {
    listen 127.0.0.1:$NGINX_PORT reuseport;
    location / {
      default_type application/json;
      return 200 '$(cat "$WORK/nginx/body.json")';
    }
  }
}
CONF
"$NGINX" -p "$WORK/nginx" -c nginx.conf
NGINX_STARTED=1

# The server with safeguards on runs beside the plain one (its own store) for the rounds.
PLAIN_PID=$SERVER_PID; PLAIN_PORT=$ABCTL_PORT
start_abctl "$WORK/guarded.sqlite" "$WORK/guarded"
GUARDED_PID=$SERVER_PID; GUARDED_PORT=$ABCTL_PORT
start_abctl "$WORK/storefronts.sqlite" "$WORK/storefronts"
PRICED_PID=$SERVER_PID; PRICED_PORT=$ABCTL_PORT
start_abctl "$WORK/bandits.sqlite" "$WORK/bandits"
BANDIT_PID=$SERVER_PID; BANDIT_PORT=$ABCTL_PORT
# A notification receiver that accepts connections and never answers.
HANG_PORT="$(free_port)"
python3 - "$HANG_PORT" <<'PY' &
import socket, sys
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen(64)
held = []
while True:
    held.append(listener.accept()[0])
PY
RECEIVER_PID=$!
start_abctl "$WORK/hang.sqlite" "$ROOT/Experiments" --notify-url "http://127.0.0.1:$HANG_PORT/hook"
HANG_PID=$SERVER_PID; HANG_SERVER_PORT=$ABCTL_PORT
REPORTS_PID=""
trap '[ -n "$REPORTS_PID" ] && kill "$REPORTS_PID" 2>/dev/null; [ -n "$GUARDED_PID" ] && kill "$GUARDED_PID" 2>/dev/null; [ -n "$PRICED_PID" ] && kill "$PRICED_PID" 2>/dev/null; [ -n "$BANDIT_PID" ] && kill "$BANDIT_PID" 2>/dev/null; [ -n "$HANG_PID" ] && kill "$HANG_PID" 2>/dev/null; [ -n "$RECEIVER_PID" ] && kill "$RECEIVER_PID" 2>/dev/null; cleanup' EXIT
SERVER_PID=$PLAIN_PID; ABCTL_PORT=$PLAIN_PORT
curl -s -X POST "http://127.0.0.1:$PRICED_PORT/v1/assign" -H 'Content-Type: application/json' \
  -d '{"user_id":"bench-sample","attributes":{"country":"JP","app_version":"2.3.0"},"placement":"feature_gate"}' | grep -q '"currency":"JPY"' \
  || echo "bench: the storefront server does not price JP in JPY" >&2
curl -s "http://127.0.0.1:$GUARDED_PORT/metrics" | grep -q '^abctl_safeguard_lease_held 1' || echo "bench: the guarded server holds no safeguard lease" >&2
BANDIT_SAMPLE="$(curl -s -X POST "http://127.0.0.1:$BANDIT_PORT/v1/assign" -H 'Content-Type: application/json' \
  -d '{"user_id":"bench-sample","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}}' || true)"
BANDIT_PERIODS="$(printf '%s' "$BANDIT_SAMPLE" | { grep -o '"allocation_period":"[^"]*"' || true; } | sort | uniq -c | tr '\n' ' ')"
[ -n "$BANDIT_PERIODS" ] && echo "bench: the bandit server answers with $BANDIT_PERIODS" || echo "bench: the bandit server's answer carries no allocation_period" >&2

NGINX_RESULTS=""; ABCTL_RESULTS=""; ONE_RESULTS=""; PLACEMENT_RESULTS=""; GUARDED_RESULTS=""; JP_RESULTS=""; NOCOUNTRY_RESULTS=""; BANDIT_RESULTS=""; HANG_RESULTS=""
bandit_run() {
  local line
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$BANDIT_PORT" | grep RESULT)"
  echo "  abctl bandits        $line"; BANDIT_RESULTS="$BANDIT_RESULTS$line;"
}
for round in $(seq "$ROUNDS"); do
  echo "bench: round $round/$ROUNDS: wrk -t$WRK_THREADS -c$CONNECTIONS -d${ROUND_SECONDS}s POST /v1/assign, nginx (fixed body) then abctl serve"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$NGINX_PORT" | grep RESULT)"
  echo "  nginx $line"; NGINX_RESULTS="$NGINX_RESULTS$line;"
  # The bandit server next to the plain one, before it on odd rounds and after it on even ones.
  [ $((round % 2)) = 1 ] && bandit_run
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
  echo "  abctl $line"; ABCTL_RESULTS="$ABCTL_RESULTS$line;"
  [ $((round % 2)) = 0 ] && bandit_run
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$HANG_SERVER_PORT" | grep RESULT)"
  echo "  abctl receiver hangs $line"; HANG_RESULTS="$HANG_RESULTS$line;"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$GUARDED_PORT" | grep RESULT)"
  echo "  abctl safeguards on  $line"; GUARDED_RESULTS="$GUARDED_RESULTS$line;"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign-one.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
  echo "  abctl one experiment $line"; ONE_RESULTS="$ONE_RESULTS$line;"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign-placement.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
  echo "  abctl placement      $line"; PLACEMENT_RESULTS="$PLACEMENT_RESULTS$line;"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign-nocountry.lua" "http://127.0.0.1:$PRICED_PORT" | grep RESULT)"
  echo "  abctl storefronts, no country $line"; NOCOUNTRY_RESULTS="$NOCOUNTRY_RESULTS$line;"
  line="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/assign-jp.lua" "http://127.0.0.1:$PRICED_PORT" | grep RESULT)"
  echo "  abctl storefronts, JP         $line"; JP_RESULTS="$JP_RESULTS$line;"
done
"$NGINX" -p "$WORK/nginx" -c nginx.conf -s stop; NGINX_STARTED=""
GUARDED_EVALUATIONS="$(curl -s "http://127.0.0.1:$GUARDED_PORT/metrics" | awk '$1 == "abctl_safeguard_evaluations_total" { print $2 }')"
GUARDED_SECONDS="$(curl -s "http://127.0.0.1:$GUARDED_PORT/metrics" | awk '$1 == "abctl_safeguard_last_evaluation_seconds" { print $2 }')"
stop_abctl
SERVER_PID=$GUARDED_PID; stop_abctl; GUARDED_PID=""
SERVER_PID=$PRICED_PID; stop_abctl; PRICED_PID=""
SERVER_PID=$BANDIT_PID; stop_abctl; BANDIT_PID=""
HANG_TRIES="$(curl -s "http://127.0.0.1:$HANG_SERVER_PORT/metrics" | awk '$1 == "abctl_notification_tries_failed_total" { print $2 }')"
SERVER_PID=$HANG_PID; stop_abctl; HANG_PID=""
kill "$RECEIVER_PID" 2>/dev/null; wait "$RECEIVER_PID" 2>/dev/null || true; RECEIVER_PID=""

# The HTTP layer's own ceiling: libmicrohttpd configured as abctl configures it, fixed body, no work.
cc -O2 -o "$WORK/mhd_fixed" "$ROOT/bench/mhd_fixed.c" -lmicrohttpd
MHD_PORT="$(free_port)"
"$WORK/mhd_fixed" "$MHD_PORT" "$WORK/nginx/body.json" "${SERVER_THREADS:-4}" >"$WORK/mhd.out" &
SERVER_PID=$!
for _ in $(seq 50); do grep -q "listening on" "$WORK/mhd.out" 2>/dev/null && break; sleep 0.1; done
echo "bench: wrk -t$WRK_THREADS -c$CONNECTIONS -d${DURATION}s POST /v1/assign (libmicrohttpd, fixed body)"
MHD_RESULT="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/assign.lua" "http://127.0.0.1:$MHD_PORT" | grep RESULT)"
echo "  $MHD_RESULT"
kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""

# --- 2. events, 100 per request ------------------------------------------------------------------
start_abctl "$WORK/events.sqlite"
BEFORE="$(metric 'abctl_events_total{outcome="stored"}')"
echo "bench: wrk -t$WRK_THREADS -c$CONNECTIONS -d${DURATION}s POST /v1/events, 100 events per request (abctl serve)"
EVENTS_RESULT="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
echo "  $EVENTS_RESULT"
AFTER="$(metric 'abctl_events_total{outcome="stored"}')"
stop_abctl
STORED_ROWS="$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from events').fetchone()[0])" "$WORK/events.sqlite")"

# --- 3. assign while reports run -----------------------------------------------------------------
. "$ROOT/bench/lib/report-store.sh"
report_events "$REPORT_USERS" "$REPORT_EVENTS"
report_store "$ABCTL" report "$ROOT/Experiments"
# A copy: the server writes (assignments), and the kept store stays as bench/report.sh reads it.
cp "$DB" "$WORK/reports.sqlite"
ABCTL_NOW=2026-12-31T00:00:00Z start_abctl "$WORK/reports.sqlite"
REPORT_URL="http://127.0.0.1:$ABCTL_PORT/v1/experiments/chorus-paywall-copy/report"
ONE_REPORT="$(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' "$REPORT_URL")"
echo "bench: one report alone ($REPORT_USERS users): $ONE_REPORT"
echo "bench: wrk -t$WRK_THREADS -c$CONNECTIONS -d${REPORT_SECONDS}s POST /v1/assign, alone then while $REPORT_LOOPS loops ask for the report"
ALONE_RESULT="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${REPORT_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
echo "  assign alone             $ALONE_RESULT"
python3 - "$REPORT_URL" "$REPORT_LOOPS" "$WORK/reports.stop" >"$WORK/reports.out" <<'LOOP' &
import os, sys, threading, time, urllib.error, urllib.request
url, loops, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
counts, lock = {}, threading.Lock()
def loop():
    while not os.path.exists(stop):
        try:
            status = urllib.request.urlopen(url, timeout=120).status
        except urllib.error.HTTPError as e:
            status = e.code
        except Exception:
            status = "error"
        with lock:
            counts[status] = counts.get(status, 0) + 1
        if status != 200:
            time.sleep(0.1)
threads = [threading.Thread(target=loop) for _ in range(loops)]
for t in threads: t.start()
for t in threads: t.join()
print(f"REPORTS answered={counts.pop(200, 0)} refused={counts.pop(503, 0)} other={sum(counts.values())}")
LOOP
REPORTS_PID=$!
sleep 1   # the first reports are running
DURING_RESULT="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${REPORT_SECONDS}s" -s "$WORK/assign.lua" "http://127.0.0.1:$ABCTL_PORT" | grep RESULT)"
echo "  assign while reports run $DURING_RESULT"
touch "$WORK/reports.stop"; wait "$REPORTS_PID" || true; REPORTS_PID=""
REPORTS_RESULT="$(cat "$WORK/reports.out")"
echo "  reports                  $REPORTS_RESULT"
stop_abctl

# --- figures -------------------------------------------------------------------------------------
echo "bench: $(nproc) cores; load average now: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
python3 - "$NGINX_RESULTS" "$ABCTL_RESULTS" "$EVENTS_RESULT" "$BEFORE" "$AFTER" "$STORED_ROWS" "$MHD_RESULT" "$ONE_RESULTS" "$PLACEMENT_RESULTS" "$GUARDED_RESULTS" "${GUARDED_EVALUATIONS:-0}" "${GUARDED_SECONDS:-0}" "$NOCOUNTRY_RESULTS" "$JP_RESULTS" "$BANDIT_RESULTS" "$HANG_RESULTS" "${HANG_TRIES:-0}" \
  "$ALONE_RESULT" "$DURING_RESULT" "$REPORTS_RESULT" "$ONE_REPORT" "$REPORT_USERS" <<'PY'
import statistics, sys
def parse(line):
    return {k: float(v) for k, v in (p.split("=") for p in line.split()[1:])}
nginx_runs = [parse(l) for l in sys.argv[1].split(";") if l]
abctl_runs = [parse(l) for l in sys.argv[2].split(";") if l]
events, mhd = parse(sys.argv[3]), parse(sys.argv[7])
before, after, rows = float(sys.argv[4] or 0), float(sys.argv[5] or 0), int(sys.argv[6])
ratios = [a["rps"] / n["rps"] for n, a in zip(nginx_runs, abctl_runs)]
ratio = statistics.median(ratios)
p99 = statistics.median(a["p99_ms"] for a in abctl_runs)
nginx = {"rps": statistics.median(n["rps"] for n in nginx_runs), "p99_ms": statistics.median(n["p99_ms"] for n in nginx_runs)}
abctl = {"rps": statistics.median(a["rps"] for a in abctl_runs), "p99_ms": p99, "errors": sum(a["errors"] for a in abctl_runs)}
stored = after - before
eps = stored / events["seconds"]
print()
print("RESULTS (loopback, same machine as wrk)")
print(f"  nginx fixed body     : {nginx['rps']:>10.0f} req/s   p99 {nginx['p99_ms']:.2f} ms   (median of {len(nginx_runs)} runs)")
print(f"  abctl POST /v1/assign: {abctl['rps']:>10.0f} req/s   p99 {abctl['p99_ms']:.2f} ms   errors {int(abctl['errors'])}   (median of {len(abctl_runs)} runs)")
by_round = ", ".join(f"{r:.1%}" for r in ratios)
p99s = ", ".join(f"{a['p99_ms']:.2f}" for a in abctl_runs)
print(f"  assign / nginx, by round: {by_round}   (abctl p99: {p99s} ms)")
print(f"  libmicrohttpd, fixed : {mhd['rps']:>10.0f} req/s   p99 {mhd['p99_ms']:.2f} ms   ({mhd['rps'] / nginx['rps']:.1%} of nginx: the HTTP layer alone)")
print(f"  assign / nginx median: {ratio:>10.1%}   (goal >= 85%: {'met' if ratio >= 0.85 else 'NOT met'}; p99 goal < 5 ms: {'met' if abctl['p99_ms'] < 5 else 'NOT met'})")
one_runs = [parse(l) for l in sys.argv[8].split(";") if l]
placement_runs = [parse(l) for l in sys.argv[9].split(";") if l]
placement_ratios = [p["rps"] / o["rps"] for o, p in zip(one_runs, placement_runs)]
placement_ratio = statistics.median(placement_ratios)
print(f"  assign, 1 experiment : {statistics.median(o['rps'] for o in one_runs):>10.0f} req/s   p99 {statistics.median(o['p99_ms'] for o in one_runs):.2f} ms")
print(f"  assign, placement    : {statistics.median(p['rps'] for p in placement_runs):>10.0f} req/s   p99 {statistics.median(p['p99_ms'] for p in placement_runs):.2f} ms   errors {int(sum(p['errors'] for p in placement_runs))}")
print(f"  placement / 1 experiment, by round: {', '.join(f'{r:.2f}x' for r in placement_ratios)}; median {placement_ratio:.2f}x (goal >= 0.95x: {'met' if placement_ratio >= 0.95 else 'NOT met'})")
guarded_runs = [parse(l) for l in sys.argv[10].split(";") if l]
guarded_ratios = [g["rps"] / a["rps"] for a, g in zip(abctl_runs, guarded_runs)]
guarded_ratio = statistics.median(guarded_ratios)
print(f"  assign, safeguards on: {statistics.median(g['rps'] for g in guarded_runs):>10.0f} req/s   p99 {statistics.median(g['p99_ms'] for g in guarded_runs):.2f} ms   errors {int(sum(g['errors'] for g in guarded_runs))}   ({sys.argv[11]} evaluations, the last {float(sys.argv[12]):.3f} s)")
print(f"  safeguards on / off, by round: {', '.join(f'{r:.2f}x' for r in guarded_ratios)}; median {guarded_ratio:.2f}x (goal >= 0.95x: {'met' if guarded_ratio >= 0.95 else 'NOT met'})")
nocountry_runs = [parse(l) for l in sys.argv[13].split(";") if l]
jp_runs = [parse(l) for l in sys.argv[14].split(";") if l]
jp_ratios = [j["rps"] / n["rps"] for n, j in zip(nocountry_runs, jp_runs)]
jp_ratio = statistics.median(jp_ratios)
print(f"  storefronts, no country: {statistics.median(n['rps'] for n in nocountry_runs):>8.0f} req/s   p99 {statistics.median(n['p99_ms'] for n in nocountry_runs):.2f} ms")
print(f"  storefronts, JP        : {statistics.median(j['rps'] for j in jp_runs):>8.0f} req/s   p99 {statistics.median(j['p99_ms'] for j in jp_runs):.2f} ms   errors {int(sum(j['errors'] for j in jp_runs))}")
print(f"  JP / no country, by round: {', '.join(f'{r:.2f}x' for r in jp_ratios)}; median {jp_ratio:.2f}x (goal within 5%: {'met' if jp_ratio >= 0.95 else 'NOT met'})")
bandit_runs = [parse(l) for l in sys.argv[15].split(";") if l]
bandit_ratios = [b["rps"] / a["rps"] for a, b in zip(abctl_runs, bandit_runs)]
bandit_ratio = statistics.median(bandit_ratios)
print(f"  assign, 3 bandits    : {statistics.median(b['rps'] for b in bandit_runs):>10.0f} req/s   p99 {statistics.median(b['p99_ms'] for b in bandit_runs):.2f} ms   errors {int(sum(b['errors'] for b in bandit_runs))}")
print(f"  bandits / fixed weights, by round: {', '.join(f'{r:.2f}x' for r in bandit_ratios)}; median {bandit_ratio:.2f}x (goal within 5%: {'met' if bandit_ratio >= 0.95 else 'NOT met'})")
hang_runs = [parse(l) for l in sys.argv[16].split(";") if l]
hang_p99 = statistics.median(h["p99_ms"] for h in hang_runs)
hang_met = hang_p99 <= max(p99 * 1.10, p99 + 0.5)
print(f"  assign, receiver hangs: {statistics.median(h['rps'] for h in hang_runs):>9.0f} req/s   p99 {hang_p99:.2f} ms   errors {int(sum(h['errors'] for h in hang_runs))}   ({sys.argv[17]} notification tries cut or failed)")
print(f"  /v1/assign p99 while a receiver hangs: {hang_p99:.2f} ms against {p99:.2f} ms (goal within 10% or 0.5 ms: {'met' if hang_met else 'NOT met'})")
alone, during = parse(sys.argv[18]), parse(sys.argv[19])
reports = dict(p.split("=") for p in sys.argv[20].split()[1:])
print(f"  assign alone (store of {int(sys.argv[22]):,} users): max {alone['max_ms']:.1f} ms   p99 {alone['p99_ms']:.2f} ms   {alone['rps']:.0f} req/s   errors {int(alone['errors'])}")
print(f"  assign while reports run: max {during['max_ms']:.1f} ms   p99 {during['p99_ms']:.2f} ms   {during['rps']:.0f} req/s   errors {int(during['errors'])}")
print(f"  reports meanwhile: {reports['answered']} answered, {reports['refused']} refused 503, {reports['other']} other   (one report alone: {sys.argv[21]})")
print(f"  assign's slowest answer while reports run: {during['max_ms']:.1f} ms (goal under 150 ms: {'met' if during['max_ms'] < 150 else 'NOT met'})")
print(f"  events, 100/request  : {events['rps']:>10.0f} req/s   p99 {events['p99_ms']:.2f} ms   errors {int(events['errors'])}")
print(f"  events stored        : {stored:>10.0f} in {events['seconds']:.1f} s = {eps:,.0f} events/s durable "
      f"(goal >= 100,000: {'met' if eps >= 100000 else 'NOT met'}); rows in the store after shutdown: {rows}")
PY
