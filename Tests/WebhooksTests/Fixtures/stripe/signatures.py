#!/usr/bin/env python3
"""Stripe-Signature cases, each judged by Stripe's own library first.

Usage: signatures.py OUT.json [--now SECONDS]

Writes a JSON list of cases {name, body, header, accepted, now}: `accepted` is whether
`stripe.WebhookSignature.verify_header` (stripe==16.1.0, tolerance 300 s) accepts the header
for the body under either configured secret (SECRETS: a current one and the one being rolled
out), with the clock fixed at `now`. abctl must accept exactly these. Without --now the clock
is the real one (the end-to-end test posts the cases to a live `abctl serve`); the committed
fixture was made with --now 1764590400.
"""
import hashlib
import hmac
import json
import sys
import time
from unittest import mock

import stripe

SECRETS = ["whsec_current_5fJ2kQ", "whsec_previous_Lm9xTz"]
UNKNOWN = "whsec_someone_else_3pQ"
TOLERANCE = 300


def sign(t, body, secret):
    return hmac.new(secret.encode(), f"{t}.{body}".encode(), hashlib.sha256).hexdigest()


def body_for(name, now):
    """A documented customer.subscription.created (trialing) event, one user per case."""
    return json.dumps({
        "id": f"evt_sig_{name}", "object": "event", "api_version": "2025-03-31.basil", "created": now,
        "type": "customer.subscription.created", "livemode": False, "pending_webhooks": 1,
        "data": {"object": {
            "id": f"sub_{name}", "object": "subscription", "status": "trialing", "currency": "usd",
            "customer": "cus_1", "trial_start": now - 60, "trial_end": now - 60 + 7 * 86400,
            "metadata": {"abctl_user_id": f"sig-{name}"},
            "items": {"object": "list", "data": [{"id": "si_1", "price": {"id": "price_1", "lookup_key": "chorus.plus.annual"}}]},
        }},
    }, separators=(",", ":"))


def cases(now):
    out = []

    def add(name, header, body=None, sent=None):
        body = body if body is not None else body_for(name, now)
        out.append((name, body if sent is None else sent, header, body))

    s1, s2 = SECRETS
    n = now
    b = lambda name: body_for(name, now)
    add("good", f"t={n},v1={sign(n, b('good'), s1)}")
    add("rotated_previous_secret", f"t={n},v1={sign(n, b('rotated_previous_secret'), s2)}")
    add("two_v1_both_secrets", f"t={n},v1={sign(n, b('two_v1_both_secrets'), s2)},v1={sign(n, b('two_v1_both_secrets'), s1)}")
    add("several_v1_first_wrong", f"t={n},v1={'0' * 64},v1={sign(n, b('several_v1_first_wrong'), s1)}")
    add("v0_beside_v1", f"t={n},v0={'a' * 64},v1={sign(n, b('v0_beside_v1'), s1)}")
    add("v1_before_t", f"v1={sign(n, b('v1_before_t'), s1)},t={n}")
    add("trailing_comma", f"t={n},v1={sign(n, b('trailing_comma'), s1)},")
    add("wrong_secret", f"t={n},v1={sign(n, b('wrong_secret'), UNKNOWN)}")
    add("tampered_body", f"t={n},v1={sign(n, b('tampered_body'), s1)}", sent=b("tampered_body").replace("trialing", "active"))
    add("tampered_trailing_newline", f"t={n},v1={sign(n, b('tampered_trailing_newline'), s1)}", sent=b("tampered_trailing_newline") + "\n")
    add("signed_other_timestamp", f"t={n},v1={sign(n - 1, b('signed_other_timestamp'), s1)}")
    add("at_tolerance_edge", f"t={n - 300},v1={sign(n - 300, b('at_tolerance_edge'), s1)}")
    add("expired_by_one_second", f"t={n - 301},v1={sign(n - 301, b('expired_by_one_second'), s1)}")
    add("expired_a_day", f"t={n - 86400},v1={sign(n - 86400, b('expired_a_day'), s1)}")
    add("future_an_hour", f"t={n + 3600},v1={sign(n + 3600, b('future_an_hour'), s1)}")
    add("future_a_year", f"t={n + 31536000},v1={sign(n + 31536000, b('future_a_year'), s1)}")
    add("negative_timestamp", f"t=-5,v1={sign(-5, b('negative_timestamp'), s1)}")
    add("missing_header", None)
    add("empty_header", "")
    add("no_timestamp", f"v1={sign(n, b('no_timestamp'), s1)}")
    add("no_v1", f"t={n}")
    add("v0_only", f"t={n},v0={sign(n, b('v0_only'), s1)}")
    add("timestamp_not_a_number", f"t=abc,v1={sign(n, b('timestamp_not_a_number'), s1)}")
    add("timestamp_hex", f"t=0x{n:x},v1={sign(n, b('timestamp_hex'), s1)}")
    add("timestamp_empty", f"t=,v1={sign(n, b('timestamp_empty'), s1)}")
    add("timestamp_spaces", f"t= {n} ,v1={sign(n, b('timestamp_spaces'), s1)}")
    add("timestamp_plus_sign", f"t=+{n},v1={sign(n, b('timestamp_plus_sign'), s1)}")
    add("timestamp_leading_zero", f"t=0{n},v1={sign(n, b('timestamp_leading_zero'), s1)}")
    add("timestamp_leading_zero_signed_as_written", f"t=0{n},v1={sign('0' + str(n), b('timestamp_leading_zero_signed_as_written'), s1)}")
    add("timestamp_underscores", f"t={str(n)[:4]}_{str(n)[4:]},v1={sign(n, b('timestamp_underscores'), s1)}")
    add("timestamp_double_underscore", f"t={str(n)[:4]}__{str(n)[4:]},v1={sign(n, b('timestamp_double_underscore'), s1)}")
    add("first_timestamp_wins", f"t={n},t=0,v1={sign(n, b('first_timestamp_wins'), s1)}")
    add("second_timestamp_ignored", f"t=0,t={n},v1={sign(n, b('second_timestamp_ignored'), s1)}")
    add("timestamp_item_without_value", f"t,t={n},v1={sign(n, b('timestamp_item_without_value'), s1)}")
    add("v1_item_without_value", f"t={n},v1,v1={sign(n, b('v1_item_without_value'), s1)}")
    add("v1_empty", f"t={n},v1=")
    add("v1_extra_equals", f"t={n},v1={sign(n, b('v1_extra_equals'), s1)}=tail")
    add("uppercase_hex", f"t={n},v1={sign(n, b('uppercase_hex'), s1).upper()}")
    add("truncated_signature", f"t={n},v1={sign(n, b('truncated_signature'), s1)[:-1]}")
    add("space_after_comma", f"t={n}, v1={sign(n, b('space_after_comma'), s1)}")
    add("uppercase_keys", f"T={n},V1={sign(n, b('uppercase_keys'), s1)}")
    add("semicolons", f"t={n};v1={sign(n, b('semicolons'), s1)}")
    return out


def judge(body, header, now):
    with mock.patch("time.time", return_value=float(now)):
        for secret in SECRETS:
            try:
                stripe.WebhookSignature.verify_header(body, header, secret, tolerance=TOLERANCE)
                return True
            except Exception:
                continue
    return False


def main():
    args = sys.argv[1:]
    out_path = args[0]
    now = int(args[args.index("--now") + 1]) if "--now" in args else int(time.time())
    result = [{"name": name, "body": sent, "header": header, "accepted": judge(sent, header, now), "now": now}
              for name, sent, header, _ in cases(now)]
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"{len(result)} cases, {sum(c['accepted'] for c in result)} accepted by stripe {stripe.VERSION}", file=sys.stderr)


if __name__ == "__main__":
    main()
