#!/usr/bin/env bash
# How long `abctl validate` takes for one experiment file written on a single line (minified, as
# generators and `jq -c` write it) with N forced users, next to Python's json module reading the
# same file. JSONReader counts columns as it moves along a line, so the time grows with the
# file's size, not with its size times the number of values on a line.
# Usage: bench/validate-one-line.sh [FORCED_USERS]   (default 20000, about 470 KB)
set -euo pipefail
cd "$(dirname "$0")/.."
USERS="${1:-20000}"
swift build -c release --product abctl >/dev/null
BIN="$(swift build -c release --show-bin-path)/abctl"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
cp Experiments/products.json "$DIR/"
python3 - "$USERS" "$DIR/one-line.json" <<'PY'
import json, sys
users, path = int(sys.argv[1]), sys.argv[2]
e = json.load(open("Experiments/chorus-trial-length.json"))
e.pop("$schema", None)
e["forced"] = {f"user-{i}": "trial-3d" for i in range(users)}
open(path, "w").write(json.dumps(e, separators=(",", ":")))
PY
"$BIN" validate "$DIR" | tail -1
best() {
  local best=""
  for run in 1 2 3 4 5; do
    start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N)
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best="$t"; fi
  done
  echo "$best"
}
echo "abctl validate: one line of $(wc -c < "$DIR/one-line.json") bytes ($USERS forced users) in $(best "$BIN" validate "$DIR") s (best of 5, wall time)"
echo "reference, python3 json.load of the same file: $(best python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$DIR/one-line.json") s (best of 5, wall time)"
