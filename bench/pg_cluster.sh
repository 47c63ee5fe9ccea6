# A throwaway PostgreSQL cluster for benchmarks, like Tests/TestSupport/PostgresCluster.swift:
# initdb into a folder, a server on a free loopback port, stopped by pg_stop. Source it:
#
#   source bench/pg_cluster.sh; pg_start "$work/pg"; ... "$PG_URL_BASE/dbname" ...; pg_stop
#
# As root the server runs as the `postgres` user (initdb refuses root). Unlike the tests, fsync
# stays on: the figures are for durable commits.
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_start() {
    PG_DIR=$1
    mkdir -p "$PG_DIR"
    PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    echo bench > "$PG_DIR/pwfile"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PG_DIR"
    pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --pwfile="$PG_DIR/pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --locale=C --no-sync > "$PG_DIR/initdb.log"
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -l "$PG_DIR/server.log" \
        -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=4GB" start > /dev/null
    PG_URL_BASE="postgresql://postgres:bench@127.0.0.1:$PG_PORT"
}

pg_psql() { "$PG_BIN/psql" -X -q -t -A -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres "$@"; }

pg_createdb() { pg_psql -d postgres -c "CREATE DATABASE $1"; }

pg_stop() { [ -n "${PG_DIR:-}" ] && pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -m fast stop > /dev/null 2>&1 || true; }

# CPU seconds (user + system) the cluster has used so far: the postmaster, its live children and
# the children that have exited (a backend ends with its connection).
pg_cpu() {
    python3 - "$(head -1 "$PG_DIR/data/postmaster.pid")" <<'PY'
import os, sys
tick, pm = os.sysconf("SC_CLK_TCK"), sys.argv[1]
def stat(pid):
    try: return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError: return None
total = sum(int(x) for x in stat(pm)[11:15])
for p in os.listdir("/proc"):
    if p.isdigit() and (c := stat(p)) and c[1] == pm: total += int(c[11]) + int(c[12])
print(f"{total / tick:.2f}")
PY
}
