#!/usr/bin/env bash
# How long the console's /placements page takes to answer with many exposures stored, and what the
# index of placement exposures (migration 25) buys: the page asked of `abctl serve` on a SQLite store
# holding ROWS exposures (default 1,000,000) spread over 30 days and both placements of the shipped
# placements.json, then the same with the index dropped. The page counts only the last 7 days.
# Usage: bench/placements.sh [ROWS]   (ABCTL_BIN: the abctl to run; default a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS="${1:-1000000}"
if [ -z "${ABCTL_BIN:-}" ]; then
  swift build -c release --product abctl >/dev/null
  ABCTL_BIN="$(swift build -c release --show-bin-path)/abctl"
fi
DIR="$(mktemp -d)"
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
DB="$DIR/store.sqlite"
: > "$DIR/empty.ndjson"
"$ABCTL_BIN" ingest "$DIR/empty.ndjson" --db "$DB" --experiments Experiments >/dev/null

# 30 days of exposures up to 2026-12-01, in µs; each row one of the placements' experiments.
END_US=1796083200000000
sqlite3 "$DB" <<SQL
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $ROWS)
INSERT INTO events (user_id, event_id, type, ts, experiment, variant, placement)
SELECT 'u' || i, 'e' || i, 1, $END_US - (i * 2592000000000 / $ROWS),
       CASE i % 4 WHEN 0 THEN 'chorus-paywall-copy' WHEN 1 THEN 'chorus-trial-length' WHEN 2 THEN 'chorus-discount-framing' ELSE 'chorus-voice' END,
       'control', CASE WHEN i % 4 < 2 THEN 'onboarding_end' ELSE 'feature_gate' END
FROM n;
SQL

# median_ms: the median of 9 answers of /placements, in ms (curl's total time).
median_ms() {
  for _ in 1 2 3 4 5 6 7 8 9; do
    curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PORT/placements"
  done | sort -n | sed -n 5p | awk '{ printf "%.1f", $1 * 1000 }'
}

serve() {
  PORT=$((20000 + RANDOM % 20000))
  ABCTL_NOW=2026-12-01T00:00:00Z "$ABCTL_BIN" serve --port "$PORT" --db "$DB" --experiments Experiments >"$DIR/out" 2>"$DIR/err" &
  PID=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/placements" && return; sleep 0.1; done
  echo "serve did not start"; cat "$DIR/err"; exit 1
}

serve
grep -o '[0-9][0-9]* exposures in the last 7 days' < <(curl -s "http://127.0.0.1:$PORT/placements") | head -2
WITH=$(median_ms)
kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
sqlite3 "$DB" "DROP INDEX events_placement_exposures"
serve
WITHOUT=$(median_ms)
echo "GET /placements with $ROWS exposures stored: ${WITH} ms with the index, ${WITHOUT} ms without it ($(awk -v a="$WITH" -v b="$WITHOUT" 'BEGIN { printf "%.1f", b / a }')x), median of 9 answers"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
