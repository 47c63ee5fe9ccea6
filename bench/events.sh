#!/usr/bin/env bash
# POST /v1/events (100 events per request, as bench/http.sh sends them) against this abctl and a
# reference abctl binary in the same run, alternating ROUNDS runs of DURATION seconds each, so a
# change to the writer is judged against the code before it on the same machine at the same load.
#
#   bench/events.sh /path/to/reference/abctl        # e.g. a release build of the commit before
#   ROUNDS=5 DURATION=6 CONNECTIONS=64 bench/events.sh /path/to/reference/abctl
#
# Durable events per second are counted from each server's own metrics (stored events). Every
# server listens on 127.0.0.1 only; every run is bounded by DURATION. Needs wrk and curl.
set -euo pipefail
REFERENCE="${1:?usage: bench/events.sh REFERENCE_ABCTL}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-6}"
CONNECTIONS="${CONNECTIONS:-64}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && swift build -c release --product abctl 2>&1 | tail -1)
ABCTL="$ROOT/.build/release/abctl"
WORK="$(mktemp -d /tmp/abctl-events.XXXXXX)"
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

cat - "$ROOT/bench/lib/events-request.lua" >"$WORK/events.lua" <<'LUA'
local counter = 0
local thread_id = 0
local threads = {}
function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end
function done(summary, latency, requests)
  io.write(string.format("RESULT seconds=%.3f p99_ms=%.3f errors=%d\n", summary.duration / 1e6, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
LUA

events_rate() {   # $1: abctl binary, $2: database; prints "N events/s (p99 X ms, errors E)"
  "$1" serve --port 0 --host 127.0.0.1 --db "$2" --experiments "$ROOT/Experiments" >"$WORK/serve.out" 2>/dev/null &
  SERVER_PID=$!
  for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
  local port; port="$(grep -o '[0-9]*$' "$WORK/serve.out")"
  local stored='abctl_events_total{outcome="stored"}'
  local before; before="$(curl -s "http://127.0.0.1:$port/metrics" | grep -F "$stored" | awk '{print $2}')"
  local result; result="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$port" | grep RESULT)"
  local after; after="$(curl -s "http://127.0.0.1:$port/metrics" | grep -F "$stored" | awk '{print $2}')"
  kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""
  python3 -c 'import sys; r = dict(p.split("=") for p in sys.argv[1].split()[1:]); n = int(sys.argv[3]) - int(sys.argv[2])
s, p99, e = float(r.get("seconds")), float(r.get("p99_ms")), r.get("errors")
print(f"{n / s:>9,.0f} events/s (p99 {p99:.1f} ms, errors {e})")' "$result" "$before" "$after"
}

echo "events: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); reference $REFERENCE"
for round in $(seq "$ROUNDS"); do
  this="$(events_rate "$ABCTL" "$WORK/this-$round.sqlite")"
  reference="$(events_rate "$REFERENCE" "$WORK/reference-$round.sqlite")"
  echo "round $round: this abctl $this   reference $reference"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
