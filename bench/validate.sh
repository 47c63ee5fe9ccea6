#!/usr/bin/env bash
# How long `abctl validate` takes for 1,000 experiment files (release build).
# Usage: bench/validate.sh [FILES]   (default 1000 copies of the shipped experiments, as drafts with unique ids)
set -euo pipefail
cd "$(dirname "$0")/.."
FILES="${1:-1000}"
swift build -c release --product abctl >/dev/null
BIN="$(swift build -c release --show-bin-path)/abctl"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
cp Experiments/products.json Experiments/schema.json "$DIR/"
i=0
while [ "$i" -lt "$FILES" ]; do
  for f in Experiments/chorus-*.json; do
    [ "$i" -lt "$FILES" ] || break
    sed -e "s/\"id\": \"\([a-z-]*\)\"/\"id\": \"\1-$i\"/" -e 's/"status": "running"/"status": "draft"/' "$f" > "$DIR/exp-$i.json"
    i=$((i + 1))
  done
done
"$BIN" validate "$DIR" | tail -1
best=""
for run in 1 2 3 4 5; do
  start=$(date +%s.%N); "$BIN" validate "$DIR" >/dev/null; end=$(date +%s.%N)
  t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best="$t"; fi
done
echo "abctl validate: $FILES experiment files in $best s (best of 5 runs, wall time)"
