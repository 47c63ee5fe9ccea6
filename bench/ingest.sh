#!/usr/bin/env bash
# Benchmark: `abctl ingest` of N realistic events (default 1,000,000), in the same run as two
# references on the same rows: the sqlite3 CLI running one INSERT per row into abctl's own
# `events` DDL (same WAL + synchronous=FULL, same 64 MiB page cache) in one transaction, and the
# SQLite floor for that layout (bench/floor.sh: one INSERT … SELECT from memory, no parsing, no
# facts). Also times abctl on the same rows with no exposures (so no facts work), which splits
# abctl's time into facts and the rest, and reports abctl's peak RSS at 250k and at N events, to
# show memory stays flat as the file grows.
#
#   bench/ingest.sh [N]
#   REF=3e5d0cf ROUNDS=3 ATTRIBUTES=1 bench/ingest.sh [N]
#   IDENTIFIED=5 ROUNDS=3 bench/ingest.sh [N]
#
# With REF (a commit), the script instead alternates ROUNDS ingests of the same N events into fresh
# files by the abctl of REF (built from `git archive`, bench/lib/reference.sh; with its own
# Experiments folder) and by this abctl, and prints each run's wall and CPU seconds and the ratio of
# the medians. ATTRIBUTES=1 gives every exposure a placement and attributes (platform, country,
# app_version, new_user) as AbctlClient sends them (bench/gen_events.py --attributes).
# With IDENTIFIED (a percent), it alternates ROUNDS ingests of the N events without and with that
# share of `identified` lines (log-ins; bench/gen_events.py --identified) and prints the ratio.
#
# Needs: python3, sqlite3, /usr/bin/time (GNU time). Builds abctl in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
SMALL=250000
[ "$N" -gt "$SMALL" ] || SMALL=$((N / 4))

swift build -c release --product abctl 2>&1 | tail -1
BIN="$PWD/.build/release/abctl"
work=$(mktemp -d "${TMPDIR:-/tmp}/abctl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), sqlite3 $(sqlite3 --version | cut -d' ' -f1)"
if [ -n "${IDENTIFIED:-}" ]; then
    # The same N events twice, the second time with IDENTIFIED percent of the lines `identified`
    # (log-ins, purchases under the known id: bench/gen_events.py --identified), alternated ROUNDS
    # times into fresh files by this abctl, in the same run (people at ingest).
    python3 bench/gen_events.py --events "$N" --out "$work/plain.ndjson"
    python3 bench/gen_events.py --events "$N" --out "$work/identified.ndjson" --identified "$IDENTIFIED"
    echo "identified lines: $(grep -c '"type":"identified"' "$work/identified.ndjson") of $N"
    echo "uptime: $(uptime)"
    : > "$work/times.txt"
    for round in $(seq "${ROUNDS:-3}"); do
        for who in plain identified; do
            rm -f "$work/alt.sqlite"*
            /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$BIN" ingest "$work/$who.ndjson" --db "$work/alt.sqlite" > "$work/out.txt"
            read -r SECS USER SYS RSS_KB < "$work/time.txt"
            echo "round $round $who: ${SECS}s wall, $(python3 -c "print(f'{$USER + $SYS:.2f}')")s CPU, $((RSS_KB / 1024)) MB; $(cat "$work/out.txt"); $(sqlite3 "$work/alt.sqlite" 'SELECT count(*) FROM people') people rows"
            echo "$who $SECS $USER $SYS" >> "$work/times.txt"
        done
    done
    echo "uptime: $(uptime)"
    python3 - "$work/times.txt" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    who, wall, user, sys_ = line.split()
    t.setdefault(who, []).append((float(wall), float(user) + float(sys_)))
m = {w: (statistics.median(a for a, _ in v), statistics.median(c for _, c in v)) for w, v in t.items()}
for w, (wall, cpu) in m.items():
    print(f"median {w:10}: {wall:.2f} s wall, {cpu:.2f} s CPU")
print(f"identified / plain: {m['identified'][1] / m['plain'][1]:.2f}x CPU, {m['identified'][0] / m['plain'][0]:.2f}x wall")
PY
    exit 0
fi
if [ -n "${REF:-}" ]; then
    ROOT=$PWD
    . bench/lib/reference.sh
    reference_abctl "$REF"
    echo "generating $N events${ATTRIBUTES:+ with attributes}..."
    python3 bench/gen_events.py --events "$N" --out "$work/events.ndjson" ${ATTRIBUTES:+--attributes}
    echo "uptime: $(uptime)"
    : > "$work/times.txt"
    for round in $(seq "${ROUNDS:-3}"); do
        for who in reference this; do
            if [ "$who" = this ]; then bin=$BIN; exps=$PWD/Experiments; else bin=$REF_ABCTL; exps=$REF_DIR/Experiments; fi
            rm -f "$work/alt.sqlite"*
            /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$bin" ingest "$work/events.ndjson" --db "$work/alt.sqlite" --experiments "$exps" > "$work/out.txt"
            read -r SECS USER SYS RSS_KB < "$work/time.txt"
            echo "round $round $who: ${SECS}s wall, $(python3 -c "print(f'{$USER + $SYS:.2f}')")s CPU, $((RSS_KB / 1024)) MB; $(cat "$work/out.txt")"
            echo "$who $SECS $USER $SYS" >> "$work/times.txt"
        done
    done
    echo "uptime: $(uptime)"
    python3 - "$work/times.txt" "$REF" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    who, wall, user, sys_ = line.split()
    t.setdefault(who, []).append((float(wall), float(user) + float(sys_)))
m = {w: (statistics.median(a for a, _ in v), statistics.median(c for _, c in v)) for w, v in t.items()}
for w, (wall, cpu) in m.items():
    print(f"median {w:9}: {wall:.2f} s wall, {cpu:.2f} s CPU")
r = m["this"][1] / m["reference"][1]
print(f"this / {sys.argv[2]}: {r:.2f}x CPU, {m['this'][0] / m['reference'][0]:.2f}x wall (goal <= 1.10x: {'met' if r <= 1.10 else 'NOT met'} by CPU)")
PY
    exit 0
fi
echo "generating $N events..."
python3 bench/gen_events.py --events "$N" --out "$work/events.ndjson" --sql "$work/events.sql"
head -n "$SMALL" "$work/events.ndjson" > "$work/events-small.ndjson"
echo "input: $(du -m "$work/events.ndjson" | cut -f1) MB NDJSON; $(du -m "$work/events.sql" | cut -f1) MB SQL"

# run_abctl FILE DB -> sets SECS (wall), CPU (user + system seconds), RSS_KB, OUT
run_abctl() {
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$BIN" ingest "$1" --db "$2" > "$work/out.txt"
    read -r SECS USER SYS RSS_KB < "$work/time.txt"
    CPU=$(python3 -c "import sys; print(f'{float(sys.argv[1]) + float(sys.argv[2]):.2f}')" "$USER" "$SYS")
    OUT=$(cat "$work/out.txt")
}

rate() { python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]):,.0f}')" "$1" "$2"; }

run_abctl "$work/events-small.ndjson" "$work/small.sqlite"
SMALL_SECS=$SECS; SMALL_RSS=$RSS_KB; SMALL_OUT=$OUT

run_abctl "$work/events.ndjson" "$work/abctl.sqlite"
ABCTL_SECS=$SECS; ABCTL_RSS=$RSS_KB; ABCTL_OUT=$OUT; ABCTL_CPU=$CPU

# The same rows with every exposure turned into a renewal: nobody is exposed, so no facts are
# computed or written; what is left is parsing, sorting, inserting and committing.
sed 's/"type":"exposure"/"type":"renewed"/' "$work/events.ndjson" > "$work/no-exposures.ndjson"
run_abctl "$work/no-exposures.ndjson" "$work/no-facts.sqlite"
NOFACTS_SECS=$SECS; NOFACTS_CPU=$CPU
rm -f "$work/no-exposures.ndjson" "$work/no-facts.sqlite"*

# The sqlite3 CLI: the same rows into abctl's events table (same DDL and indexes), one transaction.
sqlite3 "$work/abctl.sqlite" ".schema events" > "$work/events-ddl.sql"
sqlite3 "$work/baseline.sqlite" < "$work/events-ddl.sql"
# Same page cache as abctl (64 MiB); the SQL file sets WAL and synchronous=FULL as abctl does.
{ echo "PRAGMA cache_size=-65536;"; cat "$work/events.sql"; } > "$work/baseline.sql"
/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" sqlite3 "$work/baseline.sqlite" < "$work/baseline.sql" > /dev/null
read -r SQLITE_SECS SQLITE_USER SQLITE_SYS SQLITE_RSS < "$work/time.txt"
SQLITE_CPU=$(python3 -c "import sys; print(f'{float(sys.argv[1]) + float(sys.argv[2]):.2f}')" "$SQLITE_USER" "$SQLITE_SYS")

# The floor: the same rows copied by SQLite itself into the same layout.
source bench/floor.sh
floor_csv "$work/events.ndjson" "$work/events.csv"
floor_run "SQLite floor (INSERT … SELECT, same layout)" "$FLOOR_LAYOUT" "$FLOOR_CONFLICT" "$work" "$N" > "$work/floor-line.txt"
FLOOR_LINE=$(cat "$work/floor-line.txt")

ABCTL_ROWS=$(sqlite3 "$work/abctl.sqlite" "SELECT COUNT(*) FROM events")
SQLITE_ROWS=$(sqlite3 "$work/baseline.sqlite" "SELECT COUNT(*) FROM events")
FACTS=$(sqlite3 "$work/abctl.sqlite" "SELECT COUNT(*) FROM facts")
INTEGRITY=$(sqlite3 "$work/abctl.sqlite" "PRAGMA integrity_check")

echo
echo "abctl ingest ($N events):   ${ABCTL_SECS}s  $(rate "$N" "$ABCTL_SECS") events/s  (CPU ${ABCTL_CPU}s)  [$ABCTL_OUT; $ABCTL_ROWS rows, $FACTS facts rows, integrity $INTEGRITY]"
echo "abctl ingest, no exposures:  ${NOFACTS_SECS}s  $(rate "$N" "$NOFACTS_SECS") events/s  (CPU ${NOFACTS_CPU}s)  [same rows, exposures sent as renewals: no facts work]"
echo "sqlite3 CLI ($N INSERTs):   ${SQLITE_SECS}s  $(rate "$N" "$SQLITE_SECS") rows/s  (CPU ${SQLITE_CPU}s)  [$SQLITE_ROWS rows; one transaction, no facts]"
python3 -c "import sys; print(f'ratio abctl / sqlite3:        {float(sys.argv[2]) / float(sys.argv[1]):.2f}x')" "$ABCTL_SECS" "$SQLITE_SECS"
echo "$FLOOR_LINE"
python3 -c "import sys; print(f'ratio abctl / floor:          {float(sys.argv[2]) / float(sys.argv[1]):.2f}x  (goal 0.75x, and 150,000 events/s)')" "$ABCTL_SECS" "$FLOOR_SECS"
echo "abctl peak RSS:              $((SMALL_RSS / 1024)) MB at $SMALL events (${SMALL_SECS}s, $(rate "$SMALL" "$SMALL_SECS") events/s), $((ABCTL_RSS / 1024)) MB at $N events"
echo "load average after:           $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$ABCTL_ROWS" = "$SQLITE_ROWS" ] || { echo "row counts differ: abctl $ABCTL_ROWS, sqlite3 $SQLITE_ROWS" >&2; exit 1; }
