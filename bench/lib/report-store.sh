# Sourced by bench/report.sh and bench/safeguards.sh: the store they share.
# Expects ROOT (the repository). Files live in STORE_DIR (default $ROOT/.build/bench-store), named
# after the user and event counts and a hash of the generator, so a changed generator makes new ones
# and both scripts reuse what the other made.
#
#   report_events USERS EVENTS     sets DATA: bench/gen_report_events.py's events (generated once)
#   report_store ABCTL NAME EXPS   sets DB: DATA stored with `ABCTL ingest` into NAME's own file (once)
# and, from bench/lib/reference.sh, reference_abctl REF (a release build of another commit).
. "$ROOT/bench/lib/reference.sh"
STORE_DIR=${BENCH_DIR:-$ROOT/.build/bench-store}
mkdir -p "$STORE_DIR"
GENERATOR_HASH=$(sha1sum "$ROOT/bench/gen_report_events.py" | cut -c1-8)

report_events() {
  DATA=$STORE_DIR/events-$1-$2-$GENERATOR_HASH.ndjson
  if [ ! -f "$DATA" ]; then
    python3 "$ROOT/bench/gen_report_events.py" --users "$1" --events "$2" > "$DATA.partial"
    mv "$DATA.partial" "$DATA"
  fi
  STORE_KEY=$1-$2-$GENERATOR_HASH
}

report_store() {
  DB=$STORE_DIR/$2-$STORE_KEY.sqlite
  if [ ! -f "$DB.stored" ]; then   # written once ingest has finished: a stopped ingest starts over
    rm -f "$DB" "$DB-wal" "$DB-shm"
    local start end
    start=$(date +%s.%N)
    "$1" ingest "$DATA" --db "$DB" --experiments "$3" > /dev/null
    end=$(date +%s.%N)
    touch "$DB.stored"
    echo "bench: stored $(basename "$DATA") with $1 in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
  fi
}
