#!/usr/bin/env bash
# Property-based API tests: schemathesis (PyPI) against a live `abctl serve` on 127.0.0.1,
# driven by the server's own /openapi.json. Fails on any 5xx and on any response whose status,
# content type, headers or body the document does not allow.
#
#   tools/schemathesis.sh                 # MAX_EXAMPLES=25 per operation, at most TIME_LIMIT=300 s
#
# Installs schemathesis into the repo's .venv (creating it when missing). Uses the debug build
# unless ABCTL_BIN names a binary.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MAX_EXAMPLES="${MAX_EXAMPLES:-25}"
TIME_LIMIT="${TIME_LIMIT:-300}"
SCHEMATHESIS_VERSION="4.32.5"
VENV="$ROOT/.venv"

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import schemathesis, sys; sys.exit(schemathesis.__version__ != '$SCHEMATHESIS_VERSION')" 2>/dev/null; then
  echo "schemathesis: installing $SCHEMATHESIS_VERSION into $VENV"
  "$VENV/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi

ABCTL="${ABCTL_BIN:-$ROOT/.build/debug/abctl}"
if [ -z "${ABCTL_BIN:-}" ]; then (cd "$ROOT" && swift build --product abctl 2>&1 | tail -1); fi

WORK="$(mktemp -d /tmp/abctl-schemathesis.XXXXXX)"
PID=""
cleanup() { [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# Keys on, so 401/403 paths exist; the admin key reaches every route, and the webhook secret is the same header.
KEY="schemathesis-admin-key"
SDK_KEY="schemathesis-sdk-key"
ABCTL_API_KEYS="$KEY:admin;$SDK_KEY:sdk" ABCTL_REVENUECAT_AUTH="Bearer $KEY" \
  "$ABCTL" serve --port 0 --host 127.0.0.1 --db "$WORK/st.sqlite" --experiments "$ROOT/Experiments" \
  >"$WORK/serve.out" 2>"$WORK/serve.err" &
PID=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
PORT="$(grep -o '[0-9]*$' "$WORK/serve.out")"
echo "schemathesis: abctl serve on 127.0.0.1:$PORT"

set +e
# From the scratch folder, so schemathesis' cache (.schemathesis/) stays out of the repo.
cd "$WORK"
# Path parameters that name something that exists, so the report route's query parameters are fuzzed
# on a real report (a made-up id only ever gets 404) and the GrowthBook route past its key check.
cat > schemathesis.toml <<TOML
[parameters]
"path.id" = "chorus-paywall-copy"
"path.clientKey" = "$SDK_KEY"
TOML
timeout "$TIME_LIMIT" "$VENV/bin/st" run "http://127.0.0.1:$PORT/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,unsupported_method,allow_header_conformance,ignored_auth \
  --max-examples "$MAX_EXAMPLES" \
  --header "Authorization: Bearer $KEY" \
  --request-timeout 10 \
  --seed 1 \
  --no-color
STATUS=$?
set -e
# Any 5xx in the server's own log fails the run too.
if grep -q '"status":5' "$WORK/serve.err"; then
  echo "schemathesis: the server logged 5xx answers:"; grep '"status":5' "$WORK/serve.err" | head -5
  STATUS=1
fi
echo "schemathesis: requests logged by the server: $(grep -c '"msg":"request"' "$WORK/serve.err" || true)"
exit $STATUS
