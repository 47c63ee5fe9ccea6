#!/usr/bin/env bash
# Makes abctl-v2.sqlite: events.ndjson ingested by the abctl release before the idempotency key
# became (user_id, event_id) (commit b225e9b, schema version 2, unique event_id index), so the
# migration test opens a file that release really wrote. Run from the repository root:
#   bash Tests/SQLiteStoreTests/Fixtures/release-v2/make_fixture.sh
# ABCTL_OLD=/path/to/abctl uses a binary already built from b225e9b instead of building one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
old=$(mktemp -d "${TMPDIR:-/tmp}/abctl-v2.XXXXXX")
trap 'rm -rf "$old"' EXIT
git archive b225e9b | tar -x -C "$old"
bin="${ABCTL_OLD:-}"
if [ -z "$bin" ]; then
    (cd "$old" && swift build --product abctl 2>&1 | tail -1)
    bin="$old/.build/debug/abctl"
fi
rm -f "$here/abctl-v2.sqlite"
"$bin" ingest "$here/events.ndjson" --db "$here/abctl-v2.sqlite" --experiments "$old/Experiments" || [ $? = 0 ]
sqlite3 "$here/abctl-v2.sqlite" "SELECT version, description FROM schema_migrations; SELECT count(*) FROM events;"
