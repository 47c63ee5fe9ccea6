#!/usr/bin/env bash
# GET /api/features/{clientKey} (the GrowthBook SDK payload) under wrk, next to nginx serving the
# same bytes (from memory, and as a static file) in the same run.
#
#   bench/features.sh        # defaults: 6 alternating rounds of 3 s (nginx, abctl, ...), 64 connections, 2 wrk threads
#   ROUNDS=10 ROUND_SECONDS=3 CONNECTIONS=64 bench/features.sh
#
# Each round runs nginx then abctl (the payload of Experiments/, cached per snapshot), and
# abctl again with If-None-Match (304, no body): the machine is shared, so each round's ratio is
# printed and the median judged. Installs wrk and nginx from Debian when missing; everything
# listens on 127.0.0.1 and every run is bounded by ROUND_SECONDS. Builds abctl release here.
set -euo pipefail

ROUNDS="${ROUNDS:-6}"
ROUND_SECONDS="${ROUND_SECONDS:-3}"
CONNECTIONS="${CONNECTIONS:-64}"
WRK_THREADS="${WRK_THREADS:-2}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK_PREFIX="abctl-bench-features" BENCH_TOOLS="wrk nginx curl"
. "$ROOT/bench/lib/http-setup.sh"

ABCTL_API_KEYS="bench-client:sdk" "$ABCTL" serve --port 0 --host 127.0.0.1 --db "$WORK/features.sqlite" \
  --experiments "$ROOT/Experiments" >"$WORK/serve.out" 2>/dev/null &
SERVER_PID=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
ABCTL_PORT="$(grep -o '[0-9]*$' "$WORK/serve.out")"
URL_PATH="/api/features/bench-client"
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/www/api/features"
curl -s -D "$WORK/headers" -o "$WORK/nginx/payload.json" "http://127.0.0.1:$ABCTL_PORT$URL_PATH"
cp "$WORK/nginx/payload.json" "$WORK/nginx/www$URL_PATH"
chmod a+x "$WORK"; chmod -R a+rX "$WORK/nginx/www"   # nginx's workers run as another user
# The same bytes in memory, less '$' (nginx would read it as a variable) and single quotes.
BODY="$(tr "\$'" "S " <"$WORK/nginx/payload.json")"
ETAG="$(grep -i '^etag:' "$WORK/headers" | cut -d' ' -f2 | tr -d '\r')"
echo "bench: payload $(wc -c <"$WORK/nginx/payload.json") bytes, ETag $ETAG"

NGINX_PORT="$(free_port)"
# As many nginx workers as abctl has server threads (max(4, 2 x cores)): on a busy machine the
# side with more threads gets more CPU time.
WORKERS=$(( $(nproc) * 2 > 4 ? $(nproc) * 2 : 4 ))
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes $WORKERS;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT reuseport;
    location /static/ { default_type application/json; root $WORK/nginx/www; rewrite ^/static(/.*)$ \$1 break; open_file_cache max=16; }
    location / { default_type application/json; return 200 '$BODY'; }
  }
}
CONF
"$NGINX" -p "$WORK/nginx" -c nginx.conf
NGINX_STARTED=1

cat >"$WORK/result.lua" <<'LUA'
function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT rps=%.1f p99_ms=%.3f errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(99) / 1000, errors, summary.errors.status))
end
LUA

echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
N=""; A=""; C=""; F=""
run() { wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${ROUND_SECONDS}s" -s "$WORK/result.lua" "$@" | grep RESULT; }
curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/static$URL_PATH" || { echo "bench: nginx does not serve the file"; exit 1; }
for round in $(seq "$ROUNDS"); do
  n="$(run "http://127.0.0.1:$NGINX_PORT$URL_PATH")"
  f="$(run "http://127.0.0.1:$NGINX_PORT/static$URL_PATH")"
  a="$(run "http://127.0.0.1:$ABCTL_PORT$URL_PATH")"
  c="$(run -H "If-None-Match: $ETAG" "http://127.0.0.1:$ABCTL_PORT$URL_PATH")"
  echo "  round $round: nginx $n | nginx file $f | abctl $a | abctl 304 $c"
  N="$N$n;"; A="$A$a;"; C="$C$c;"; F="$F$f;"
done
echo "bench: $(nproc) cores; load average now: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
python3 - "$N" "$A" "$C" "$F" <<'PY'
import statistics, sys
def runs(s): return [{k: float(v) for k, v in (p.split("=") for p in l.split()[1:])} for l in s.split(";") if l]
nginx, abctl, cached, static = runs(sys.argv[1]), runs(sys.argv[2]), runs(sys.argv[3]), runs(sys.argv[4])
med = lambda rs, k: statistics.median(r[k] for r in rs)
print("RESULTS (loopback, GET /api/features/{clientKey})")
print(f"  nginx, body in memory: {med(nginx, 'rps'):>9.0f} req/s  p99 {med(nginx, 'p99_ms'):.2f} ms  non-2xx {int(sum(r['non2xx'] for r in nginx))}")
print(f"  nginx, static file   : {med(static, 'rps'):>9.0f} req/s  p99 {med(static, 'p99_ms'):.2f} ms  non-2xx {int(sum(r['non2xx'] for r in static))}")
print(f"  abctl 200 (payload) : {med(abctl, 'rps'):>9.0f} req/s  p99 {med(abctl, 'p99_ms'):.2f} ms  errors {int(sum(r['errors'] for r in abctl))}  non-2xx {int(sum(r['non2xx'] for r in abctl))}")
print(f"  abctl 304 (ETag)    : {med(cached, 'rps'):>9.0f} req/s  p99 {med(cached, 'p99_ms'):.2f} ms")
print("  abctl / nginx by round: " + ", ".join(f"{a['rps'] / n['rps']:.1%}" for n, a in zip(nginx, abctl)) +
      f"  (median {statistics.median(a['rps'] / n['rps'] for n, a in zip(nginx, abctl)):.1%})")
PY
