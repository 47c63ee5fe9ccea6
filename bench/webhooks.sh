#!/usr/bin/env bash
# Webhook verification per second on one core: abctl's Webhooks target (webhook-bench, one
# thread, pinned to one CPU) beside the vendors' own Python libraries doing the same check in the
# same run (stripe.WebhookSignature.verify_header; google.auth.jwt.decode), on the committed
# fixtures' "good" cases. Needs `make venv`. Prints the load average with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${SECONDS_PER:-3}
swift build -c release --product webhook-bench >/dev/null
echo "load: $(uptime | sed 's/.*load average: //')"
taskset -c 0 .build/release/webhook-bench --seconds "$SECONDS_PER"
taskset -c 0 .venv/bin/python - "$SECONDS_PER" <<'PY'
import datetime, json, sys, time
from unittest import mock
import stripe
import google.auth._helpers
from google.auth import jwt
seconds = float(sys.argv[1])
F = "Tests/WebhooksTests/Fixtures"
def rate(fn):
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(50): fn()
        n += 50
    return f"{int(n / (time.process_time() - cpu))} verifications per CPU second ({int(n / (time.perf_counter() - start))} per wall second)"
good = next(c for c in json.load(open(F + "/stripe/signatures.json")) if c["name"] == "good")
with mock.patch("time.time", return_value=float(good["now"])):
    def check():
        for secret in ["whsec_previous_Lm9xTz", "whsec_current_5fJ2kQ"]:
            try:
                return stripe.WebhookSignature.verify_header(good["body"], good["header"], secret, tolerance=300)
            except stripe.SignatureVerificationError:
                pass
    print(f"reference stripe {stripe.VERSION} verify_header: {rate(check)}")
token = next(c for c in json.load(open(F + "/googleplay/tokens.json")) if c["name"] == "good")
certs = json.load(open(F + "/googleplay/certs.json"))
fixed = datetime.datetime.fromtimestamp(token["now"], tz=datetime.timezone.utc).replace(tzinfo=None)
with mock.patch.object(google.auth._helpers, "utcnow", return_value=fixed):
    aud = "https://abctl.example.com/v1/webhooks/googleplay"
    print(f"reference google-auth jwt.decode: {rate(lambda: jwt.decode(token['token'], certs=certs, audience=aud, clock_skew_in_seconds=0))}")
PY
