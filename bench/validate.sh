#!/usr/bin/env bash
# How long `abctl validate` takes (release build):
#   1. FILES experiment files (default 1,000 copies of the shipped experiments, as drafts with unique ids);
#   2. `--against HEAD` on a git repository of AGAINST experiments (default 200), all running, each in a
#      namespace of its own, with one in ten edited since HEAD (coverage lowered: a share of users is
#      computed for each) and one paywall edited (a warning), as CI runs `--against origin/main`.
# Usage: bench/validate.sh [FILES] [AGAINST]
set -euo pipefail
cd "$(dirname "$0")/.."
FILES="${1:-1000}"
AGAINST="${2:-200}"
swift build -c release --product abctl >/dev/null
BIN="$(swift build -c release --show-bin-path)/abctl"
DIR="$(mktemp -d)"
REPO="$(mktemp -d)"
trap 'rm -rf "$DIR" "$REPO"' EXIT

# best_of_5 COMMAND...: the best wall time of five runs, in seconds.
best_of_5() {
  local best="" start end t
  for run in 1 2 3 4 5; do
    start=$(date +%s.%N); "$@" >/dev/null || true; end=$(date +%s.%N)
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best="$t"; fi
  done
  echo "$best"
}

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
echo "abctl validate: $FILES experiment files in $(best_of_5 "$BIN" validate "$DIR") s (best of 5 runs, wall time)"

mkdir "$REPO/Experiments"
cp Experiments/products.json Experiments/schema.json "$REPO/Experiments/"
i=0
while [ "$i" -lt "$AGAINST" ]; do
  for f in Experiments/chorus-*.json; do
    [ "$i" -lt "$AGAINST" ] || break
    sed -e "s/\"id\": \"\([a-z-]*\)\"/\"id\": \"\1-$i\"/" -e "s/\"id\": \"paywall\"/\"id\": \"ns-$i\"/" "$f" > "$REPO/Experiments/exp-$i.json"
    i=$((i + 1))
  done
done
git -C "$REPO" init -q
git -C "$REPO" add .
git -C "$REPO" -c user.name=bench -c user.email=bench@localhost commit -q -m main
for ((i = 0; i < AGAINST; i += 10)); do
  # Coverage lowered: a reshuffle whose share is computed.
  sed -i 's/"coverage": 1.0/"coverage": 0.9/' "$REPO/Experiments/exp-$i.json"
done
# One arm's paywall edited (a warning), in a file whose coverage is unchanged: the first such file
# with a 3-day trial (exp-1 is a copy of the holdout, which has no paywall).
paywall=""
for ((i = 1; i < AGAINST; i++)); do
  if (( i % 10 != 0 )) && grep -q '"trial_days": 3' "$REPO/Experiments/exp-$i.json"; then paywall="$REPO/Experiments/exp-$i.json"; break; fi
done
[ -n "$paywall" ] && sed -i '0,/"trial_days": 3/s//"trial_days": 5/' "$paywall"
(cd "$REPO" && "$BIN" validate Experiments --against HEAD | tail -1) || true
t=$(cd "$REPO" && best_of_5 "$BIN" validate Experiments --against HEAD)
echo "abctl validate --against HEAD: $AGAINST running experiments, $(( (AGAINST + 9) / 10 )) reshuffled and 1 paywall edited, in $t s (best of 5 runs, wall time)"
