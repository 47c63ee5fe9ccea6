"""Signed App Store Server Notifications V2 for abctl's webhook tests, each judged by Apple's own
app-store-server-library (SignedDataVerifier, online checks off) given the test root.

Run by Tests/EndToEndTests/AppStoreWebhookTests.swift with the test venv's python:
    notifications.py OUT_DIR BUNDLE_ID [USERS_JSON]
Writes OUT_DIR/root.pem (the configured root) and OUT_DIR/cases.json: a list of
{"name", "body", "apple_accepts", "type"?, "status"?, "user"?}; a case of the subscription's later
life adds "event_id", "events" (how many it stores) and "row" (what the stored event keeps). The CA chains are throwaway:
made here with `cryptography`, with Apple's OIDs on the leaf and the intermediate.
"""
import base64
import datetime
import json
import os
import sys
import time
import uuid

import jwt
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

OUT, BUNDLE = sys.argv[1], sys.argv[2]
LEAF_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
INTERMEDIATE_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")
NOW_MS = int(time.time() * 1000)
UTC = datetime.timezone.utc


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "abctl tests")])


def certificate(subject, key, issuer=None, issuer_key=None, ca=False, oid=None,
                start=datetime.datetime(2024, 1, 1, tzinfo=UTC), end=datetime.datetime(2036, 1, 1, tzinfo=UTC)):
    issuer = issuer or (subject, key)
    issuer_name, issuer_key = (issuer[0].subject, issuer[1]) if isinstance(issuer[0], x509.Certificate) else (name(subject), key)
    builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(issuer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(end)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False))
    if oid is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(oid, b"\x05\x00"), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def new_key():
    return ec.generate_private_key(ec.SECP256R1())


def chain(root, root_key, leaf_oid=LEAF_OID, intermediate_oid=INTERMEDIATE_OID, leaf_dates=None):
    intermediate_key, leaf_key = new_key(), new_key()
    intermediate = certificate("Test WWDR", intermediate_key, (root, root_key), ca=True, oid=intermediate_oid)
    dates = {"start": leaf_dates[0], "end": leaf_dates[1]} if leaf_dates else {}
    leaf = certificate("Test App Store signing", leaf_key, (intermediate, intermediate_key), oid=leaf_oid, **dates)
    return leaf_key, [leaf, intermediate, root]


def der64(cert):
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()


def sign(payload, key, certs, algorithm="ES256"):
    return jwt.encode(payload, key, algorithm=algorithm, headers={"x5c": [der64(c) for c in certs]})


root_key = new_key()
root = certificate("Test Root CA", root_key, ca=True)
other_root_key = new_key()
other_root = certificate("Other Root CA", other_root_key, ca=True)
good_key, good_chain = chain(root, root_key)


def transaction(user, offer=None, price=59990, bundle=BUNDLE, original="1000000001", currency="USD", product="chorus.plus.annual"):
    t = {"transactionId": str(uuid.uuid4().int % 10**15), "originalTransactionId": original, "webOrderLineItemId": "2000000001",
         "bundleId": bundle, "productId": product, "subscriptionGroupIdentifier": "21000001",
         "purchaseDate": NOW_MS - 1000, "originalPurchaseDate": NOW_MS - 1000, "expiresDate": NOW_MS + 7 * 86400000,
         "quantity": 1, "type": "Auto-Renewable Subscription", "appAccountToken": user, "inAppOwnershipType": "PURCHASED",
         "signedDate": NOW_MS, "environment": "Sandbox", "transactionReason": "PURCHASE", "storefront": "USA",
         "storefrontId": "143441", "price": price, "currency": currency}
    if offer:
        t["offerType"] = 1
        t["offerDiscountType"] = offer
    return t


def renewal(original="1000000001", **fields):
    r = {"originalTransactionId": original, "autoRenewProductId": "chorus.plus.annual", "productId": "chorus.plus.annual",
         "autoRenewStatus": 1, "signedDate": NOW_MS, "environment": "Sandbox", "recentSubscriptionStartDate": NOW_MS - 1000,
         "renewalDate": NOW_MS + 7 * 86400000}
    r.update(fields)
    return r


def notification(kind, subtype=None, tx=None, bundle=BUNDLE, key=good_key, certs=None, tx_jws=None, signed_date=None, uuid_=None, renew=None):
    certs = certs or good_chain
    data = {"appAppleId": 1234567890, "bundleId": bundle, "bundleVersion": "2.1.0", "environment": "Sandbox", "status": 1}
    if tx is not None or tx_jws is not None:
        data["signedTransactionInfo"] = tx_jws or sign(tx, good_key, good_chain)
        data["signedRenewalInfo"] = sign(renew or renewal(), good_key, good_chain)
    payload = {"notificationType": kind, "notificationUUID": uuid_ or str(uuid.uuid4()), "data": data, "version": "2.0",
               "signedDate": signed_date or NOW_MS}
    if subtype:
        payload["subtype"] = subtype
    return payload, sign(payload, key, certs)


verifier = SignedDataVerifier([root.public_bytes(serialization.Encoding.DER)], False, Environment.SANDBOX, BUNDLE)


def apple_accepts(signed_payload):
    """Apple's verdict on the notification and the signed data nested in it."""
    try:
        decoded = verifier.verify_and_decode_notification(signed_payload)
        if decoded.data and decoded.data.signedTransactionInfo:
            verifier.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo)
        if decoded.data and decoded.data.signedRenewalInfo:
            verifier.verify_and_decode_renewal_info(decoded.data.signedRenewalInfo)
        return True
    except VerificationException:
        return False


cases = []


def add(case_name, body, jws, **expected):
    cases.append({"name": case_name, "body": body, "apple_accepts": apple_accepts(jws) if jws is not None else False, **expected})


def envelope(jws):
    return json.dumps({"signedPayload": jws})


trial_user, buyer = str(uuid.uuid4()), str(uuid.uuid4())
trial_uuid = str(uuid.uuid4())

# Accepted: every mapped type, an ignored subtype, a retry.
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(trial_user, offer="FREE_TRIAL"), uuid_=trial_uuid)
add("trial", envelope(jws), jws, status="stored", type="trial_started", user=trial_user, event_id=trial_uuid, revenue=None)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(buyer, original="1000000002"))
add("purchase", envelope(jws), jws, status="stored", type="purchased", user=buyer, revenue=59.99)
_, jws = notification("DID_RENEW", None, transaction(trial_user))
add("first renewal converts the trial", envelope(jws), jws, status="stored", type="converted", user=trial_user, revenue=59.99)
_, jws = notification("DID_RENEW", None, transaction(trial_user))
add("second renewal", envelope(jws), jws, status="stored", type="renewed", user=trial_user, revenue=59.99)
_, jws = notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", transaction(buyer, original="1000000002"))
add("auto-renew off", envelope(jws), jws, status="stored", type="cancelled", user=buyer, revenue=None)
_, jws = notification("REFUND", None, transaction(buyer, original="1000000002", price=59990))
add("refund", envelope(jws), jws, status="stored", type="refunded", user=buyer, revenue=-59.99)
_, jws = notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", transaction(buyer, original="1000000002"))
add("auto-renew on again", envelope(jws), jws, status="stored", type="uncancelled", user=buyer, revenue=None)

# The subscription's later life: each notification type and subtype as abctl maps it, the fields
# checked on the stored row (`event_id` the notificationUUID).
life = str(uuid.uuid4())
GRACE_MS = NOW_MS + 16 * 86400000


def life_case(case_name, kind, subtype, stored_type, tx=None, renew=None, events=1, **row):
    nid = str(uuid.uuid4())
    _, signed = notification(kind, subtype, tx or transaction(life, original="1000000005"), uuid_=nid, renew=renew)
    add(case_name, envelope(signed), signed, status="stored" if stored_type else "ignored", type=stored_type,
        user=life if stored_type else None, revenue=None, event_id=nid, events=events, row=row or None)


life_case("payment failed, in grace", "DID_FAIL_TO_RENEW", "GRACE_PERIOD", "billing_issue",
          renew=renewal("1000000005", gracePeriodExpiresDate=GRACE_MS, isInBillingRetryPeriod=True), grace_until_ms=GRACE_MS)
life_case("grace period over: the billing issue goes on", "GRACE_PERIOD_EXPIRED", None, None)
for subtype, reason in [("VOLUNTARY", "voluntary"), ("BILLING_RETRY", "billing"), ("PRICE_INCREASE", "price_increase"),
                        ("PRODUCT_NOT_FOR_SALE", "product_unavailable")]:
    life_case("expired " + subtype, "EXPIRED", subtype, "expired", reason=reason)
life_case("revoked", "REVOKE", None, "expired", reason="other")
life_case("upgrade: a plan change now and its charge", "DID_CHANGE_RENEWAL_PREF", "UPGRADE", "plan_changed",
          tx=transaction(life, original="1000000005", price=99990, product="chorus.plus.lifetime"), events=2,
          product_id="chorus.plus.lifetime", effective="now", renewed=99.99)
life_case("downgrade from the next renewal", "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", "plan_changed",
          renew=renewal("1000000005", autoRenewProductId="chorus.plus.monthly"),
          product_id="chorus.plus.monthly", previous_product_id="chorus.plus.annual", effective="next_renewal")
life_case("downgrade undone", "DID_CHANGE_RENEWAL_PREF", None, "plan_changed", product_id="chorus.plus.annual", effective="next_renewal")
_, jws = notification("TEST")
add("test notification is ignored", envelope(jws), jws, status="ignored")
# Revenue in euros is stored converted (Experiments/products.json: one EUR is 1.08 USD), the original kept;
# a currency with no rate is refused with 422 and nothing stored.
euro_buyer = str(uuid.uuid4())
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(euro_buyer, original="1000000003", price=49990, currency="EUR"))
add("purchase in euros", envelope(jws), jws, status="stored", type="purchased", user=euro_buyer, original=[49.99, "EUR"])
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(str(uuid.uuid4()), original="1000000004", price=549000, currency="SEK"))
add("purchase in a currency with no rate", envelope(jws), jws, http=422, field="currency")
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(trial_user, offer="FREE_TRIAL"), uuid_=trial_uuid)
add("retry of the trial", envelope(jws), jws, status="duplicate", type="trial_started", user=trial_user)

# Refused: each must be refused by Apple's verifier too.
victim = str(uuid.uuid4())
payload, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim))
head, _, sig = jws.split(".")
tampered_payload = dict(payload, notificationType="REFUND")
tampered = head + "." + base64.urlsafe_b64encode(json.dumps(tampered_payload).encode()).rstrip(b"=").decode() + "." + sig
add("tampered payload", envelope(tampered), tampered)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), key=new_key())
add("wrong signature", envelope(jws), jws)
expired_key, expired_chain = chain(root, root_key, leaf_dates=(datetime.datetime(2020, 1, 1, tzinfo=UTC), datetime.datetime(2021, 1, 1, tzinfo=UTC)))
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), key=expired_key, certs=expired_chain)
add("expired leaf", envelope(jws), jws)
other_key, other_chain = chain(other_root, other_root_key)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), key=other_key, certs=other_chain)
add("another root", envelope(jws), jws)
no_leaf_oid_key, no_leaf_oid_chain = chain(root, root_key, leaf_oid=None)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), key=no_leaf_oid_key, certs=no_leaf_oid_chain)
add("leaf without Apple's OID", envelope(jws), jws)
no_int_oid_key, no_int_oid_chain = chain(root, root_key, intermediate_oid=None)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), key=no_int_oid_key, certs=no_int_oid_chain)
add("intermediate without Apple's OID", envelope(jws), jws)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), certs=good_chain[:2])
add("two certificates", envelope(jws), jws)
payload, _ = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim))
none_jws = jwt.encode(payload, None, algorithm="none", headers={"x5c": [der64(c) for c in good_chain]})
add("alg none", envelope(none_jws), none_jws)
hs_jws = jwt.encode(payload, "a shared secret of thirty-two bytes!", algorithm="HS256", headers={"x5c": [der64(c) for c in good_chain]})
add("alg HS256", envelope(hs_jws), hs_jws)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim), bundle="com.example.other")
add("another app's bundle id", envelope(jws), jws)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim, bundle="com.example.other"))
add("transaction of another app", envelope(jws), jws)
bad_tx = sign(transaction(victim), new_key(), good_chain)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", tx_jws=bad_tx)
add("transaction with a wrong signature", envelope(jws), jws)
_, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(victim))
add("truncated signedPayload", envelope(jws[: len(jws) // 2]), jws[: len(jws) // 2])
add("truncated body", envelope(jws)[:-40], None)
add("not JSON", "signedPayload=" + jws, None)
add("no signedPayload", json.dumps({"payload": jws}), None)

# Optional: a JSON list of user ids, each given one signed purchase ("purchase by USER"), for tests
# that follow particular ids through the webhook (ByteDistinctIDsTests).
for extra_user in (json.loads(sys.argv[3]) if len(sys.argv) > 3 else []):
    _, jws = notification("SUBSCRIBED", "INITIAL_BUY", transaction(extra_user, price=9990))
    add("purchase by " + extra_user, envelope(jws), jws, status="stored", type="purchased", user=extra_user, revenue=9.99)

os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, "root.pem"), "wb") as f:
    f.write(root.public_bytes(serialization.Encoding.PEM))
with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(json.dumps({case["name"]: case["apple_accepts"] for case in cases}))
