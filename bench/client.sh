#!/bin/sh
# AbctlClient's hot paths, each next to its reference from the same run (see client-bench's header):
# paywall(for:) from the device cache (goal: under 50 µs) beside an empty actor call and the
# server's own answer over loopback; the event queue's fsynced events per second beside plain
# write+fsync of the same bytes on the same disk.
# Usage: bench/client.sh [CALLS] [EVENTS]     (default 100000 cached answers, 2000 events)
set -eu
cd "$(dirname "$0")/.."
CALLS="${1:-100000}"
EVENTS="${2:-2000}"
swift build -c release --product abctl >/dev/null
swift build -c release --product client-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)"
WORK="$(mktemp -d)"
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$BIN/abctl" serve --port 0 --db "$WORK/events.sqlite" --experiments Experiments >"$WORK/stdout" 2>/dev/null &
SERVER=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/stdout" 2>/dev/null && break; sleep 0.1; done
URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/stdout")"
echo "release build; queue files in $WORK (the same disk as the reference)"
"$BIN/client-bench" --url "$URL" --calls "$CALLS" --events "$EVENTS" --dir "$WORK/client"
