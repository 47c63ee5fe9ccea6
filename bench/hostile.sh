#!/usr/bin/env bash
# A normal client's assign latency with and without hostile clients, abctl serve next to nginx under
# the same load in the same run.
#
#   bench/hostile.sh                 # defaults below
#   TRICKLE=2000 IDLE=10000 NOREAD=50 DURATION=12 bench/hostile.sh
#
# For each server, bench/slow_clients.py runs one normal client (POST /v1/assign on a new
# connection every 50 ms, 2 s timeout) for DURATION seconds:
#   none     no hostile load
#   trickle  TRICKLE connections sending one header line a second, never finishing their head
#            (abctl answers 408 at its 10 s --header-timeout; nginx's client_header_timeout is 60 s)
#   idle     IDLE keep-alive connections that made one request and then stay silent; the servers'
#            RSS before and after is printed, and the difference per connection
#   noread   NOREAD connections pipelining 200 requests and never reading an answer
# Then a 64 MiB body is POSTed with Python's urllib (which writes the whole body before reading) to
# each server's 16 MiB limit: it should read a 413, not "connection reset".
#
# nginx answers every request with a fixed body of the same size as abctl's answer, with
# worker_connections 20000 (so it holds the same loads). Installs nginx from Debian when missing.
# Everything listens on 127.0.0.1 and every run stops by itself. Needs a release build (built here).
set -euo pipefail

TRICKLE="${TRICKLE:-2000}"
IDLE="${IDLE:-10000}"
NOREAD="${NOREAD:-50}"
DURATION="${DURATION:-12}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ABCTL_GIVEN="${ABCTL:-}"   # a binary to measure instead of this checkout's release build
WORK_PREFIX="abctl-hostile" BENCH_TOOLS="nginx curl"
. "$ROOT/bench/lib/http-setup.sh"
ulimit -n "$(ulimit -Hn)"
if [ -n "$ABCTL_GIVEN" ]; then ABCTL="$ABCTL_GIVEN"; fi

"$ABCTL" serve --port 0 --host 127.0.0.1 --db "$WORK/hostile.sqlite" --experiments "$ROOT/Experiments" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
ABCTL_PORT="$(grep -o '[0-9]*$' "$WORK/serve.out")"
SAMPLE="$(curl -s -X POST "http://127.0.0.1:$ABCTL_PORT/v1/assign" -H 'Content-Type: application/json' \
  -d '{"user_id":"bench-sample","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}}')"

NGINX_PORT="$(free_port)"
mkdir -p "$WORK/nginx/logs"
printf '%s' "$SAMPLE" | tr "\$'" "S " >"$WORK/nginx/body.json"
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes auto;
worker_rlimit_nofile 20000;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log crit;
events { worker_connections 20000; }
http {
  access_log off;
  client_max_body_size 16m;
  server {
    listen 127.0.0.1:$NGINX_PORT reuseport backlog=4096;
    location / {
      default_type application/json;
      return 200 '$(cat "$WORK/nginx/body.json")';
    }
  }
}
CONF
"$NGINX" -p "$WORK/nginx" -c nginx.conf
NGINX_STARTED=1
sleep 0.5
NGINX_WORKERS="$(pgrep -P "$(cat "$WORK/nginx/nginx.pid")" | paste -sd, -)"

echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: every figure moves with other work)"
run() {   # $1 server name, $2 port, $3 pids, $4 load name, $5 slow_clients.py mode, $6 connections
  local line
  line="$(timeout $((DURATION + 120)) python3 "$ROOT/bench/slow_clients.py" --port "$2" --mode "$5" --connections "$6" \
    --duration "$DURATION" --pids "$3" | grep RESULT)"
  printf '  %-5s %-7s %s\n' "$1" "$4" "${line#RESULT }"
  echo "$1 $4 $6 $line" >>"$WORK/results"
  sleep 2
}
for mode in none trickle idle noread; do
  case "$mode" in none) n=0; m=idle ;; trickle) n=$TRICKLE; m=trickle ;; idle) n=$IDLE; m=idle ;; noread) n=$NOREAD; m=noread ;; esac
  echo "bench: $mode ($n hostile connections, ${DURATION} s)"
  run abctl "$ABCTL_PORT" "$SERVER_PID" "$mode" "$m" "$n"
  run nginx "$NGINX_PORT" "$NGINX_WORKERS" "$mode" "$m" "$n"
done

echo "bench: a 64 MiB body to a 16 MiB limit with Python's urllib (writes the whole body, then reads)"
for server in "abctl $ABCTL_PORT /v1/events" "nginx $NGINX_PORT /v1/events"; do
  set -- $server
  python3 - "$2" "$3" "$1" <<'PY'
import sys, urllib.request, urllib.error
port, path, name = sys.argv[1], sys.argv[2], sys.argv[3]
request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"x" * (64 << 20), method="POST",
                                 headers={"Content-Type": "application/x-ndjson"})
try:
    with urllib.request.urlopen(request, timeout=30) as reply:
        print(f"  {name}: {reply.status} (expected 413)")
except urllib.error.HTTPError as e:
    print(f"  {name}: {e.code} {e.read()[:90]!r}")
except Exception as e:
    print(f"  {name}: failed: {type(e).__name__}: {e}")
PY
done

echo "bench: abctl connection metrics"
curl -s "http://127.0.0.1:$ABCTL_PORT/metrics" | grep -E '^abctl_http_(connections|lingering)' | sed 's/^/  /'
echo "bench: load average now $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$WORK/results" "$IDLE" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, mode, n, _, *fields = line.split()
    rows[(name, mode)] = dict(f.split("=", 1) for f in fields)
print("bench: normal client (POST /v1/assign, new connection each), p50 / p99 ms, failed calls:")
for mode in ["none", "trickle", "idle", "noread"]:
    cells = []
    for name in ["abctl", "nginx"]:
        r = rows.get((name, mode), {})
        cells.append(f"{name} {r.get('p50_ms','?'):>6} / {r.get('p99_ms','?'):>6}  failed {r.get('normal_failed','?')}")
    print(f"  {mode:<8} " + "   |   ".join(cells))
for name in ["abctl", "nginx"]:
    r = rows.get((name, "idle"), {})
    try:
        per = (int(r["rss_after_kb"]) - int(r["rss_before_kb"])) * 1024 / int(sys.argv[2])
        note = " (nginx allocates its connection table for worker_connections at start)" if name == "nginx" else ""
        print(f"bench: {name} RSS {r['rss_before_kb']} -> {r['rss_after_kb']} kB with {sys.argv[2]} idle keep-alive connections: {per:.0f} bytes each{note}")
    except (KeyError, ValueError, ZeroDivisionError):
        pass
PY
