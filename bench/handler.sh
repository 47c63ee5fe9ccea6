#!/usr/bin/env bash
# The CPU one request costs inside abctl serve, without libmicrohttpd or TCP: each request goes
# through what the daemon calls (route, handle, answered, completed) on one thread, against a
# real store in a temporary folder. bench/http.sh measures the whole server under load; this
# tells which part of a request is abctl's own work.
#
#   bench/handler.sh                 # assign, not found and events, 200,000 requests each
#   REQUESTS=50000 bench/handler.sh
#
# With valgrind installed, INSTRUCTIONS=1 also counts instructions per request (callgrind), a
# figure that does not move with the machine's load.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REQUESTS="${REQUESTS:-200000}"
(cd "$ROOT" && swift build -c release --product handler-bench 2>&1 | tail -1)
BENCH="$ROOT/.build/release/handler-bench"
for route in assign notfound events; do
  "$BENCH" --route "$route" --requests "$REQUESTS" --experiments "$ROOT/Experiments" 2>/dev/null
done
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "bench: INSTRUCTIONS=1 needs valgrind (apt-get install valgrind)"; exit 1; }
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BENCH" --route "$1" --requests "$2" \
              --experiments "$ROOT/Experiments" 2>&1 | awk '/Collected/ {print $4}'; }
  for route in assign notfound; do
    # Two runs, N and 2N requests: the difference leaves out start-up.
    one="$(count "$route" 10000)"; two="$(count "$route" 20000)"
    echo "handler-bench $route: $(( (two - one) / 10000 )) instructions per request (callgrind)"
  done
  # Storefronts: the shipped experiments with storefront prices, assign with "country":"JP"
  # (a storefront) against no country and "country":"US" (the default storefront). Goal: JP within 5%.
  priced="$(mktemp -d)"; trap 'rm -rf "$priced"' EXIT
  cp -r "$ROOT/Experiments/." "$priced"
  python3 "$ROOT/bench/lib/storefront-products.py" "$priced/products.json"
  countc() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BENCH" --route assign --requests "$2" --country "$1" \
               --experiments "$priced" 2>&1 | awk '/Collected/ {print $4}'; }
  for country in none US JP; do
    one="$(countc "$country" 10000)"; two="$(countc "$country" 20000)"
    echo "handler-bench assign, storefronts, country $country: $(( (two - one) / 10000 )) instructions per request (callgrind)"
  done
fi
