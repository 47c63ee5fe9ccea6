#!/usr/bin/env python3
"""Pub/Sub push OIDC tokens, each judged by google-auth first.

Usage: tokens.py OUT_DIR [--now SECONDS] [--keys-from DIR]

Writes into OUT_DIR: jwks.json and certs.json (the same two public keys, as a JSON Web Key Set
and as a map of key id to PEM certificate: the two forms Google publishes), and tokens.json, a
list of {name, token, accepted, now}. `accepted` is whether google.auth.jwt.decode (google-auth
2.62.2, certs the kid -> PEM map, audience AUDIENCE, clock_skew_in_seconds=0, the clock fixed at
`now`) accepts the token AND its claims pass the checks Google documents for push
authentication: iss accounts.google.com (with or without https://), email the push service
account, email_verified true. abctl must accept exactly these. The committed fixture was made
with --now 1764590400; the end-to-end test runs it at the real clock, with its own keys.
"""
import base64
import datetime
import hashlib
import hmac
import json
import os
import sys
import time
from unittest import mock

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
import google.auth
import google.auth._helpers
from google.auth import jwt

AUDIENCE = "https://abctl.example.com/v1/webhooks/googleplay"
ACCOUNT = "play-push@chorus-app.iam.gserviceaccount.com"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(obj):
    return b64(json.dumps(obj, separators=(",", ":")).encode())


def sign_rs256(key, header, claims):
    signing_input = f"{segment(header)}.{segment(claims)}".encode()
    return signing_input.decode() + "." + b64(key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256()))


def certificate(key, name):
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(start + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA256())).public_bytes(serialization.Encoding.PEM).decode()


def jwk(key, kid):
    numbers = key.public_key().public_numbers()
    as_bytes = lambda n: n.to_bytes((n.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": b64(as_bytes(numbers.n)), "e": b64(as_bytes(numbers.e))}


def cases(now, k1, k2, stranger):
    claims = lambda **over: {k: v for k, v in {"aud": AUDIENCE, "azp": "1234567890", "email": ACCOUNT, "email_verified": True,
                                                 "exp": now + 3600, "iat": now, "iss": "https://accounts.google.com",
                                                 "sub": "1234567890", **over}.items() if v is not ...}
    head = lambda kid="k1", alg="RS256": {k: v for k, v in {"alg": alg, "kid": kid, "typ": "JWT"}.items() if v is not ...}
    good = sign_rs256(k1, head(), claims())
    h, p, s = good.split(".")
    public_pem = k1.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    hs_input = f"{segment(head(alg='HS256'))}.{segment(claims())}"
    flipped = bytearray(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)))
    flipped[10] ^= 1
    return [
        ("good", good),
        ("good_second_key", sign_rs256(k2, head("k2"), claims())),
        ("good_issuer_without_https", sign_rs256(k1, head(), claims(iss="accounts.google.com"))),
        ("good_no_kid_tries_every_key", sign_rs256(k2, head(kid=...), claims())),
        ("good_issued_now_expires_now", sign_rs256(k1, head(), claims(iat=now, exp=now))),
        ("good_float_times", sign_rs256(k1, head(), claims(iat=now - 0.5, exp=now + 0.5))),
        ("wrong_audience", sign_rs256(k1, head(), claims(aud="https://other.example.com/push"))),
        ("audience_as_list", sign_rs256(k1, head(), claims(aud=[AUDIENCE]))),
        ("no_audience", sign_rs256(k1, head(), claims(aud=...))),
        ("wrong_issuer", sign_rs256(k1, head(), claims(iss="https://evil.example.com"))),
        ("no_issuer", sign_rs256(k1, head(), claims(iss=...))),
        ("wrong_account", sign_rs256(k1, head(), claims(email="someone@chorus-app.iam.gserviceaccount.com"))),
        ("no_email", sign_rs256(k1, head(), claims(email=...))),
        ("email_not_verified", sign_rs256(k1, head(), claims(email_verified=False))),
        ("email_verified_missing", sign_rs256(k1, head(), claims(email_verified=...))),
        ("email_verified_as_string", sign_rs256(k1, head(), claims(email_verified="true"))),
        ("expired", sign_rs256(k1, head(), claims(iat=now - 3600, exp=now - 1))),
        ("issued_in_the_future", sign_rs256(k1, head(), claims(iat=now + 1, exp=now + 3600))),
        ("no_exp", sign_rs256(k1, head(), claims(exp=...))),
        ("no_iat", sign_rs256(k1, head(), claims(iat=...))),
        ("exp_as_string", sign_rs256(k1, head(), claims(exp=str(now + 3600)))),
        ("unknown_kid", sign_rs256(k1, head("k9"), claims())),
        ("signed_by_a_stranger_under_k1", sign_rs256(stranger, head(), claims())),
        ("signed_by_a_stranger_no_kid", sign_rs256(stranger, head(kid=...), claims())),
        ("k2_signature_under_k1", sign_rs256(k2, head("k1"), claims())),
        ("tampered_payload", f"{h}.{segment(claims(email='attacker@example.com'))}.{s}"),
        ("tampered_signature", f"{h}.{p}.{b64(bytes(flipped))}"),
        ("signature_removed", f"{h}.{p}."),
        ("alg_none", f"{segment(head(alg='none'))}.{segment(claims())}."),
        ("alg_none_with_signature", f"{segment(head(alg='none'))}.{p}.{s}"),
        ("alg_hs256_keyed_with_public_key", hs_input + "." + b64(hmac.new(public_pem, hs_input.encode(), hashlib.sha256).digest())),
        ("alg_rs512", f"{segment(head(alg='RS512'))}.{segment(claims())}." + b64(k1.sign(f"{segment(head(alg='RS512'))}.{segment(claims())}".encode(), padding.PKCS1v15(), hashes.SHA512()))),
        ("two_parts", f"{h}.{p}"),
        ("four_parts", f"{good}.{s}"),
        ("header_not_json", f"{b64(b'not json')}.{p}.{s}"),
        ("payload_an_array", sign_rs256(k1, head(), claims()).split(".")[0] + "." + b64(b"[1,2]") + "." + s),
    ]


def judge(token, pem_map, now):
    fixed = datetime.datetime.fromtimestamp(now, tz=datetime.timezone.utc).replace(tzinfo=None)
    with mock.patch.object(google.auth._helpers, "utcnow", return_value=fixed):
        try:
            claims = jwt.decode(token, certs=pem_map, audience=AUDIENCE, clock_skew_in_seconds=0)
        except Exception:
            return False
    return (claims.get("iss") in ("https://accounts.google.com", "accounts.google.com")
            and claims.get("email") == ACCOUNT and claims.get("email_verified") is True)


def load_or_make_keys(folder):
    names = {"k1": None, "k2": None, "stranger": None}
    for name in names:
        path = os.path.join(folder, f"{name}.key.pem") if folder else None
        if path and os.path.exists(path):
            names[name] = serialization.load_pem_private_key(open(path, "rb").read(), password=None)
        else:
            names[name] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return names


def main():
    args = sys.argv[1:]
    out = args[0]
    now = int(args[args.index("--now") + 1]) if "--now" in args else int(time.time())
    os.makedirs(out, exist_ok=True)
    keys = load_or_make_keys(out)
    for name, key in keys.items():
        with open(os.path.join(out, f"{name}.key.pem"), "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    pem_map = {"k1": certificate(keys["k1"], "k1"), "k2": certificate(keys["k2"], "k2")}
    with open(os.path.join(out, "certs.json"), "w") as f:
        json.dump(pem_map, f, indent=1)
    with open(os.path.join(out, "jwks.json"), "w") as f:
        json.dump({"keys": [jwk(keys["k1"], "k1"), jwk(keys["k2"], "k2")]}, f, indent=1)
    result = [{"name": name, "token": token, "accepted": judge(token, pem_map, now), "now": now}
              for name, token in cases(now, keys["k1"], keys["k2"], keys["stranger"])]
    with open(os.path.join(out, "tokens.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"{len(result)} tokens, {sum(c['accepted'] for c in result)} accepted by google-auth {google.auth.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
