# Sourced by the benchmarks that measure this abctl beside the abctl of another commit (bench/report.sh,
# bench/safeguards.sh through bench/lib/report-store.sh, bench/ingest.sh, bench/events.sh). Expects ROOT.
#
#   reference_abctl REF   sets REF_ABCTL and REF_DIR: a release build of commit REF made from
#                         `git archive` in $ROOT/.build/bench-refs/REF (once, kept), with that commit's
#                         own Experiments folder in REF_DIR/Experiments
reference_abctl() {
  REF_DIR=$ROOT/.build/bench-refs/$1
  REF_ABCTL=$REF_DIR/.build/release/abctl
  if [ ! -x "$REF_ABCTL" ]; then
    echo "bench: building the reference abctl of $1 (release, from git archive)"
    rm -rf "$REF_DIR" && mkdir -p "$REF_DIR"
    git -C "$ROOT" archive "$1" | tar -x -C "$REF_DIR"
    (cd "$REF_DIR" && swift build -c release --product abctl 2>&1 | tail -1)
  fi
}
