"""App Store notifications whose appAccountToken is a store account id, each judged by
Apple's app-store-server-library like the cases of notifications.py, whose chains and helpers it
reuses (run as a module: it writes root.pem and its own cases.json, which this replaces).

    store_accounts.py OUT_DIR BUNDLE_ID KNOWN_TOKEN UNKNOWN_TOKEN

Writes OUT_DIR/root.pem and OUT_DIR/cases.json: [{"name", "body", "apple_accepts", "token",
"trial_days"?}]: a free trial of one week (offerPeriod P1W) for KNOWN_TOKEN, the same trial with no
offerPeriod (its expiresDate − purchaseDate, 3 days; signed a second later), and a purchase for
UNKNOWN_TOKEN (two seconds later).
"""
import json
import os
import runpy
import sys
import uuid

out, bundle, known, unknown = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
sys.argv = [os.path.join(here, "notifications.py"), out, bundle]
n = runpy.run_path(sys.argv[0])

cases = []
trial = n["transaction"](known, offer="FREE_TRIAL")
trial["offerPeriod"] = "P1W"
_, jws = n["notification"]("SUBSCRIBED", "INITIAL_BUY", trial)
cases.append({"name": "trial of a week for the known token", "body": n["envelope"](jws), "apple_accepts": n["apple_accepts"](jws),
              "token": known, "trial_days": 7})
short = n["transaction"](known, offer="FREE_TRIAL", original="1000000003")
short["expiresDate"] = short["purchaseDate"] + 3 * 86400000
_, jws = n["notification"]("SUBSCRIBED", "INITIAL_BUY", short, signed_date=n["NOW_MS"] + 1000)   # after the first
cases.append({"name": "trial without offerPeriod", "body": n["envelope"](jws), "apple_accepts": n["apple_accepts"](jws),
              "token": known, "trial_days": 3})
_, jws = n["notification"]("SUBSCRIBED", "INITIAL_BUY", n["transaction"](unknown, original="1000000004"), signed_date=n["NOW_MS"] + 2000)
cases.append({"name": "purchase for an unknown token", "body": n["envelope"](jws), "apple_accepts": n["apple_accepts"](jws),
              "token": unknown})
with open(os.path.join(out, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
