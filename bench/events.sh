#!/usr/bin/env bash
# POST /v1/events (100 events per request, as bench/http.sh sends them) against this abctl and a
# reference abctl binary in the same run, alternating ROUNDS runs of DURATION seconds each, so a
# change to the writer is judged against the code before it on the same machine at the same load.
#
#   bench/events.sh /path/to/reference/abctl        # e.g. a release build of the commit before
#   bench/events.sh 3e5d0cf                          # a commit: built from `git archive` (bench/lib/reference.sh)
#   ROUNDS=5 DURATION=6 CONNECTIONS=64 WRK_ATTRIBUTES=1 bench/events.sh /path/to/reference/abctl
#
# WRK_ATTRIBUTES=1: every exposure carries a placement and attributes (bench/lib/events-request.lua).
# IDENTIFIED=1: each round also runs this abctl with 5% of the lines `identified` (log-ins), and the
# medians end with its figures beside this abctl's without them.
# Besides events per second, each run reads the server's own CPU time (/proc) and gives CPU µs per
# stored event, the figure to compare on a busy machine; the medians and their ratios end the run.
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
if [ ! -x "$REFERENCE" ] || [ -d "$REFERENCE" ]; then
  . "$ROOT/bench/lib/reference.sh"
  reference_abctl "$REFERENCE"
  REFERENCE=$REF_ABCTL
  REFERENCE_EXPERIMENTS=$REF_DIR/Experiments   # that commit's own files
fi
ABCTL="$ROOT/.build/release/abctl"
WORK="$(mktemp -d /tmp/abctl-events.XXXXXX)"
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

cat "$ROOT/bench/lib/wrk-common.lua" "$ROOT/bench/lib/events-request.lua" >"$WORK/events.lua"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # user + system clock ticks of a process

events_rate() {   # $1: abctl binary, $2: database, $3: experiments; prints "N events/s, C µs CPU/event (p99 X ms, errors E)"
  "$1" serve --port 0 --host 127.0.0.1 --db "$2" --experiments "$3" >"$WORK/serve.out" 2>/dev/null &
  SERVER_PID=$!
  for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
  local port; port="$(grep -o '[0-9]*$' "$WORK/serve.out")"
  local stored='abctl_events_total{outcome="stored"}'
  local before; before="$(curl -s "http://127.0.0.1:$port/metrics" | grep -F "$stored" | awk '{print $2}')"
  local ticks; ticks="$(cpu_ticks "$SERVER_PID")"
  local result; result="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/events.lua" "http://127.0.0.1:$port" | grep RESULT)"
  local after; after="$(curl -s "http://127.0.0.1:$port/metrics" | grep -F "$stored" | awk '{print $2}')"
  ticks=$(( $(cpu_ticks "$SERVER_PID") - ticks ))
  kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""
  python3 -c 'import sys; r = dict(p.split("=") for p in sys.argv[1].split()[1:]); n = int(sys.argv[3]) - int(sys.argv[2])
s, p99, e = float(r.get("seconds")), float(r.get("p99_ms")), r.get("errors")
cpu = int(sys.argv[4]) / int(sys.argv[5])
print(f"{n / s:>9,.0f} events/s, {cpu / max(n, 1) * 1e6:5.2f} µs CPU/event (p99 {p99:.1f} ms, errors {e})")' "$result" "$before" "$after" "$ticks" "$(getconf CLK_TCK)"
}

echo "events: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); reference $REFERENCE"
for round in $(seq "$ROUNDS"); do
  this="$(events_rate "$ABCTL" "$WORK/this-$round.sqlite" "$ROOT/Experiments")"
  reference="$(events_rate "$REFERENCE" "$WORK/reference-$round.sqlite" "${REFERENCE_EXPERIMENTS:-$ROOT/Experiments}")"
  echo "round $round: this abctl $this   reference $reference"
  echo "this $this" >> "$WORK/rounds.txt"; echo "reference $reference" >> "$WORK/rounds.txt"
  if [ "${IDENTIFIED:-}" = 1 ]; then
    identified="$(WRK_IDENTIFIED=1 events_rate "$ABCTL" "$WORK/identified-$round.sqlite" "$ROOT/Experiments")"
    echo "round $round: this abctl, 5% identified lines $identified"
    echo "identified $identified" >> "$WORK/rounds.txt"
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$WORK/rounds.txt" <<'PY'
import statistics, sys
rate, cpu = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    rate.setdefault(f[0], []).append(float(f[1].replace(",", "")))
    cpu.setdefault(f[0], []).append(float(f[3]))
r = statistics.median(rate["this"]) / statistics.median(rate["reference"])
c = statistics.median(cpu["this"]) / statistics.median(cpu["reference"])
print(f"medians: this {statistics.median(rate['this']):,.0f} events/s, {statistics.median(cpu['this']):.2f} µs CPU/event; "
      f"reference {statistics.median(rate['reference']):,.0f} events/s, {statistics.median(cpu['reference']):.2f} µs CPU/event")
print(f"this / reference: {r:.2f}x events/s, {c:.2f}x CPU per event (goal: CPU per event <= 1.10x)")
if "identified" in rate:
    print(f"this with 5% identified lines: {statistics.median(rate['identified']):,.0f} events/s, {statistics.median(cpu['identified']):.2f} µs CPU/event; "
          f"{statistics.median(rate['identified']) / statistics.median(rate['this']):.2f}x events/s, "
          f"{statistics.median(cpu['identified']) / statistics.median(cpu['this']):.2f}x CPU per event of this without them")
PY
