#!/usr/bin/env python3
"""Pub/Sub pushes of Google Play real-time developer notifications in Google's documented
shapes, each with an OIDC token signed by the key tokens.py wrote (k1), and the
SubscriptionPurchaseV2 each purchase token reads as.

Usage: pushes.py DIR AUDIENCE ACCOUNT PACKAGE NOW [currency|life]

Reads DIR/k1.key.pem; writes DIR/pushes.json ({name, body, token, status, type} in delivery
order: what abctl must answer; `status` 422 means refused) and DIR/purchases.json
({purchaseToken: purchase}). With `currency`, the scenario is revenue in EUR and JPY (converted
by products.json's `exchange_rates`) and in SEK (no rate: refused). With `life`, every
subscription notification type abctl maps (cancels by each party, grace, hold, restart, pause,
revocation, expiry, a linked re-signup and plan changes), each with the row its event keeps.
"""
import base64
import datetime
import json
import os
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

DAY = 86400


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def oidc(key, audience, account, now):
    header = {"alg": "RS256", "kid": "k1", "typ": "JWT"}
    claims = {"aud": audience, "azp": "1", "email": account, "email_verified": True, "exp": now + 3600, "iat": now,
              "iss": "https://accounts.google.com", "sub": "1"}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    return signing_input + "." + b64url(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def purchase(account, start, expiry, phase, units, nanos, currency="USD", product="chorus.plus.annual", replaced=None, **fields):
    item = {"productId": product, "expiryTime": rfc3339(expiry),
            "autoRenewingPlan": {"autoRenewEnabled": True, "recurringPrice": {"currencyCode": currency, "units": str(units), "nanos": nanos}},
            "offerDetails": {"basePlanId": "annual", "offerTags": []}, "offerPhase": {phase: {}}, "latestSuccessfulOrderId": "GPA.3300-0000-0000-00000"}
    if replaced:
        item["itemReplacement"] = {"productId": replaced[0], "basePlanId": "annual", "replacementMode": replaced[1]}
    return {"kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "startTime": rfc3339(start),
            "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "latestOrderId": "GPA.3300-0000-0000-00000",
            "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "externalAccountIdentifiers": {"obfuscatedExternalAccountId": account} if account else {}, "lineItems": [item], **fields}


def cancelled_by(who):
    """A purchase's `canceledStateContext` as Google words each kind of cancel."""
    contexts = {"user": {"userInitiatedCancellation": {"cancelSurveyResult": {"reason": "CANCEL_SURVEY_REASON_FOUND_BETTER_APP"},
                                                        "cancelTime": "2026-11-30T10:00:00Z"}},
                "system": {"systemInitiatedCancellation": {}}, "developer": {"developerInitiatedCancellation": {}},
                "replacement": {"replacementCancellation": {}}}
    return {"canceledStateContext": contexts[who], "subscriptionState": "SUBSCRIPTION_STATE_CANCELED"}


def main():
    folder, audience, account, package, now = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    key = serialization.load_pem_private_key(open(os.path.join(folder, "k1.key.pem"), "rb").read(), password=None)
    t = lambda days: now - int(days * DAY)
    currency = sys.argv[6:7] == ["currency"]
    life = sys.argv[6:7] == ["life"]
    if life:
        year = t(9) + 365 * DAY
        purchases = {
            # g1 pays, and its subscription goes through every kind of cancel, failure and end.
            "tok-g1": purchase("g1", t(9), year, "basePrice", 59, 990000000),
            "tok-g1-user": purchase("g1", t(9), year, "basePrice", 59, 990000000, **cancelled_by("user")),
            "tok-g1-system": purchase("g1", t(9), year, "basePrice", 59, 990000000, **cancelled_by("system")),
            "tok-g1-developer": purchase("g1", t(9), year, "basePrice", 59, 990000000, **cancelled_by("developer")),
            "tok-g1-replaced": purchase("g1", t(9), year, "basePrice", 59, 990000000, **cancelled_by("replacement")),
            "tok-g1-grace": purchase("g1", t(9), now + 16 * DAY, "basePrice", 59, 990000000, subscriptionState="SUBSCRIPTION_STATE_IN_GRACE_PERIOD"),
            # g2 pays, signs up again for the same product before the lapse, then moves to monthly from the
            # next renewal, then to the lifetime plan at once.
            "tok-g2": purchase("g2", t(9), year, "basePrice", 59, 990000000),
            "tok-g2-again": purchase("g2", t(3), year, "basePrice", 59, 990000000, linkedPurchaseToken="tok-g2"),
            "tok-g2-monthly": purchase("g2", t(2), year, "basePrice", 9, 990000000, product="chorus.plus.monthly",
                                       replaced=("chorus.plus.annual", "DEFERRED"), linkedPurchaseToken="tok-g2"),
            "tok-g2-lifetime": purchase("g2", t(1), year, "basePrice", 99, 990000000, product="chorus.plus.lifetime",
                                        replaced=("chorus.plus.annual", "WITH_TIME_PRORATION"), linkedPurchaseToken="tok-g2"),
            # g3 names an earlier token abctl never saw a payment for: a plain purchase.
            "tok-g3": purchase("g3", t(1), year, "basePrice", 59, 990000000, linkedPurchaseToken="tok-unseen"),
        }
    elif currency:
        purchases = {
            # q1 (arm trial-7d): paid 49.99 EUR at once.
            "tok-q1": purchase("q1", t(5), t(5) + 365 * DAY, "basePrice", 49, 990000000, currency="EUR"),
            # q2 (arm trial-3d): paid 8900 JPY at once, then refunded (voided).
            "tok-q2": purchase("q2", t(5), t(5) + 365 * DAY, "basePrice", 8900, 0, currency="JPY"),
            # q3 (arm trial-3d): paid 599 SEK, which has no rate.
            "tok-q3": purchase("q3", t(5), t(5) + 365 * DAY, "basePrice", 599, 0, currency="SEK"),
        }
    else:
        purchases = {
            # p1 (arm trial-7d): a 7-day free trial, then paid.
            "tok-p1-trial": purchase("p1", t(9), t(2), "freeTrial", 59, 990000000),
            "tok-p1": purchase("p1", t(9), t(2) + 365 * DAY, "basePrice", 59, 990000000),
            # p2 (arm trial-3d): paid at once, then refunded (voided).
            "tok-p2": purchase("p2", t(6), t(6) + 365 * DAY, "basePrice", 29, 990000000),
            # p3 (arm trial-3d): a 3-day trial, cancelled.
            "tok-p3": purchase("p3", t(3), t(0), "freeTrial", 59, 990000000),
            "tok-nouser": purchase(None, t(2), t(2) + 365 * DAY, "basePrice", 9, 990000000),
        }
    pushes = []
    counter = [0]

    def push(name, notification, status, etype=None, package_name=package, message_id=None, events=1, **row):
        counter[0] += 1
        data = {"version": "1.0", "packageName": package_name, "eventTimeMillis": str(notification.pop("at") * 1000), **notification}
        body = {"message": {"data": base64.b64encode(json.dumps(data).encode()).decode(), "messageId": message_id or f"msg-{counter[0]}",
                            "message_id": message_id or f"msg-{counter[0]}", "publishTime": rfc3339(now), "attributes": {}},
                "subscription": "projects/chorus-app/subscriptions/play-rtdn"}
        pushes.append({"name": name, "body": json.dumps(body), "token": oidc(key, audience, account, now), "status": status, "type": etype,
                       "event_id": message_id or f"msg-{counter[0]}", "events": events, "row": row or None})

    sub = lambda kind, token, at: {"at": at, "subscriptionNotification": {"version": "1.0", "notificationType": kind, "purchaseToken": token,
                                                                         "subscriptionId": "chorus.plus.annual"}}
    if life:
        life_scenario(push, sub, t, now)
    elif currency:
        push("q1 purchased in EUR", sub(4, "tok-q1", t(5)), "stored", "purchased")
        push("q2 purchased in JPY", sub(4, "tok-q2", t(5)), "stored", "purchased")
        push("q2 voided", {"at": t(4), "voidedPurchaseNotification": {"purchaseToken": "tok-q2", "orderId": "GPA.3", "productType": 1, "refundType": 1}},
             "stored", "refunded")
        push("q3 purchased in SEK", sub(4, "tok-q3", t(5)), "422")
    else:
        main_scenario(push, sub, t)
    with open(os.path.join(folder, "pushes.json"), "w") as f:
        json.dump(pushes, f, indent=1)
    with open(os.path.join(folder, "purchases.json"), "w") as f:
        json.dump(purchases, f, indent=1)


def main_scenario(push, sub, t):
    push("p1 trial", sub(4, "tok-p1-trial", t(9)), "stored", "trial_started")
    push("p1 converted", sub(2, "tok-p1", t(2)), "stored", "converted")
    # Pub/Sub's redelivery: answered from the store as first stored (mapped again it would read as a renewal), no Play API call.
    push("p1 converted retried", sub(2, "tok-p1", t(2)), "duplicate", "converted", message_id="msg-2")
    push("p1 renewed", sub(2, "tok-p1", t(1)), "stored", "renewed")
    push("p2 purchased", sub(4, "tok-p2", t(6)), "stored", "purchased")
    push("p2 voided", {"at": t(5), "voidedPurchaseNotification": {"purchaseToken": "tok-p2", "orderId": "GPA.1", "productType": 1, "refundType": 1}},
         "stored", "refunded")
    push("p3 trial", sub(4, "tok-p3", t(3)), "stored", "trial_started")
    push("p3 cancelled", sub(3, "tok-p3", t(2.5)), "stored", "cancelled")
    push("no obfuscated account id", sub(4, "tok-nouser", t(2)), "ignored")
    push("voided unknown token", {"at": t(1), "voidedPurchaseNotification": {"purchaseToken": "tok-zzz", "orderId": "GPA.2", "productType": 1, "refundType": 1}},
         "ignored")
    push("test notification", {"at": t(1), "testNotification": {"version": "1.0"}}, "ignored")
    push("price change confirmed (type 8)", sub(8, "tok-p1", t(1)), "ignored")


def life_scenario(push, sub, t, now):
    """Each subscription notification type abctl maps, and the row each one's event keeps."""
    push("g1 purchased", sub(4, "tok-g1", t(9)), "stored", "purchased")
    push("g1 cancelled by the user", sub(3, "tok-g1-user", t(8)), "stored", "cancelled")
    push("g1 cancelled by the system: a failed payment", sub(3, "tok-g1-system", t(8)), "stored", "billing_issue")
    push("g1 cancelled by the developer", sub(3, "tok-g1-developer", t(8)), "ignored")
    push("g1 cancelled by a replacement", sub(3, "tok-g1-replaced", t(8)), "ignored")
    push("g1 in grace", sub(6, "tok-g1-grace", t(7)), "stored", "billing_issue", grace_until_ms=(now + 16 * DAY) * 1000)
    push("g1 on hold", sub(5, "tok-g1", t(6)), "stored", "billing_issue")
    push("g1 recovered", sub(1, "tok-g1", t(5.5)), "stored", "renewed")
    push("g1 restarted", sub(7, "tok-g1", t(5)), "stored", "uncancelled")
    push("g1 paused", sub(10, "tok-g1", t(4)), "stored", "expired", reason="paused")
    push("g1 expired after the user's cancel", sub(13, "tok-g1-user", t(3)), "stored", "expired", reason="voluntary")
    push("g1 expired after a system cancel", sub(13, "tok-g1-system", t(3)), "stored", "expired", reason="billing")
    push("g1 expired after the developer's cancel", sub(13, "tok-g1-developer", t(3)), "stored", "expired", reason="other")
    push("g1 expired by a replacement: no end", sub(13, "tok-g1-replaced", t(3)), "ignored")
    push("g1 revoked: refunded and ended", sub(12, "tok-g1", t(2)), "stored", "refunded", events=2, revenue=-59.99, ended="other")
    push("g1 voided after the revocation: counted once", {"at": t(1.5), "voidedPurchaseNotification": {"purchaseToken": "tok-g1", "orderId": "GPA.9",
                                                                                                         "productType": 1, "refundType": 1}}, "ignored")
    push("g1 revoked with no payment kept: ended", sub(12, "tok-g1-developer", t(1.4)), "stored", "expired", reason="other")
    push("g2 purchased", sub(4, "tok-g2", t(9)), "stored", "purchased")
    push("g2 signs up again before the lapse", sub(4, "tok-g2-again", t(3)), "stored", "uncancelled")
    push("g2 moves to monthly from the next renewal", sub(4, "tok-g2-monthly", t(2)), "stored", "plan_changed",
         product_id="chorus.plus.monthly", previous_product_id="chorus.plus.annual", effective="next_renewal")
    push("g2 moves to lifetime at once", sub(4, "tok-g2-lifetime", t(1)), "stored", "plan_changed",
         product_id="chorus.plus.lifetime", previous_product_id="chorus.plus.annual", effective="now")
    push("g3 links a token abctl never saw", sub(4, "tok-g3", t(1)), "stored", "purchased")
    push("price change confirmed (type 8): no type for it", sub(8, "tok-g1", t(1)), "ignored")


if __name__ == "__main__":
    main()
