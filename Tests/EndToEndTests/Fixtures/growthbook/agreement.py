"""GrowthBook's Python SDK against a live `abctl serve`: for every generated user, the variant the
SDK picks from GET /api/features/{clientKey} must be the one POST /v1/assign answers.

Run by Tests/EndToEndTests/GrowthBookAgreementTests.swift with the test venv's python:
    agreement.py PORT CLIENT_KEY ASSIGN_KEY USERS SEED
Prints one JSON summary line; exits 1 on any disagreement.
"""
import json
import multiprocessing
import os
import random
import socket
import sys
import urllib.request

from growthbook import GrowthBook

PORT, CLIENT_KEY, ASSIGN_KEY, USERS, SEED = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])

# Attribute values chosen to sit on every edge of the translation: ASCII case, non-ASCII case
# folding (dotless i, Kelvin sign), wrong types, versions with other part counts, leading zeros,
# long parts, pre-release tags, a trailing newline, non-ASCII digits.
MISSING = object()
PLATFORMS = ["ios", "IOS", "iOS", "android", "Android", "web", "\u0131os", "ios ", 5, None, True, MISSING]
COUNTRIES = ["GB", "gb", "US", "uS", "FR", "de", "G B", "\u212aR", "", 44, MISSING]
LANGUAGES = ["en", "EN", "pt-BR", "pt-br", "pt", "fr", "en\n", MISSING]
VERSIONS = ["2.1.0", "2.1", "2", "3", "2.0.9", "2.1.0.0", "2.1.0.1", "2.10", "02.1.0", "2.01", "10.0", "1.99.99",
            "3.0.0", "2.99999", "2.100000", "123456789.1", "1234567890", "v2.1.0", "2.1.0-beta", "2.1.0\n", " 2.1",
            "\u0662.1.0", "", "2..1", 2.1, 3, None, MISSING]
NEW_USER = [True, True, False, 1, "true", None, MISSING]
PLANS = ["free", "trial", "paid", "FREE", 1, MISSING]
ID_FORMS = ["u{}", "us\u00e9r-{}", "\u7528\u6237{}", "\U0001F426{}", "Zo\u00eb {}", "{}", "\u05d0-{}", "UPPER-{}"]


def pick(rng, values):
    return values[rng.randrange(len(values))]


def make_users(rng, forced_ids):
    for i in range(USERS):
        if forced_ids and i % 97 == 0:
            user = forced_ids[(i // 97) % len(forced_ids)]
        else:
            user = pick(rng, ID_FORMS).format(rng.randrange(10**9))
        attributes = {}
        for key, values in (("platform", PLATFORMS), ("country", COUNTRIES), ("language", LANGUAGES),
                            ("app_version", VERSIONS), ("new_user", NEW_USER), ("plan", PLANS)):
            # Most users carry plausible values, so that many pass every targeting key.
            value = pick(rng, values[:2] if rng.random() < 0.55 else values)
            if value is not MISSING:
                attributes[key] = value
        yield user, attributes


class PipelinedClient:
    """POST /v1/assign over one keep-alive connection, BATCH requests written before reading."""

    BATCH = 64

    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", int(PORT)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def request(self, body):
        data = json.dumps(body, ensure_ascii=False).encode()
        head = ("POST /v1/assign HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Authorization: Bearer {ASSIGN_KEY}\r\nContent-Length: {len(data)}\r\n\r\n").encode()
        return head + data

    def read_reply(self):
        while b"\r\n\r\n" not in self.buffer:
            self.fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        while len(self.buffer) < length:
            self.fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body

    def fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        self.buffer += chunk

    def assign_all(self, bodies):
        for start in range(0, len(bodies), self.BATCH):
            batch = bodies[start:start + self.BATCH]
            self.sock.sendall(b"".join(self.request(b) for b in batch))
            for _ in batch:
                status, body = self.read_reply()
                if status != 200:
                    raise RuntimeError(f"/v1/assign answered {status}: {body[:300]!r}")
                yield json.loads(body)


def compare(users, features):
    """One worker: its own SDK instance loaded from the server, its own keep-alive connection."""
    os.nice(10)   # an oracle: let the other tests of a parallel run have the CPU first
    gb = GrowthBook(api_host=f"http://127.0.0.1:{PORT}", client_key=CLIENT_KEY)
    gb.load_features()
    client = PipelinedClient()
    answers = client.assign_all([{"user_id": u, "attributes": a} for u, a in users])
    summary = {"users": 0, "evaluations": 0, "mismatches": 0, "sdk_sources": {}, "assign_reasons": {}, "not_in_payload": {}}
    samples = []
    for (user, attributes), answer in zip(users, answers):
        summary["users"] += 1
        gb.set_attributes({**attributes, "id": user})
        for a in answer["assignments"]:
            experiment = a["experiment"]
            summary["assign_reasons"][a["reason"]] = summary["assign_reasons"].get(a["reason"], 0) + 1
            if experiment not in features:
                # Not running or outside its dates: not in the payload. Only forced users get a variant from /v1/assign.
                if a["variant"] is not None and a["reason"] != "forced":
                    summary["mismatches"] += 1
                    samples.append({"user": user, "experiment": experiment, "assign": a["variant"], "sdk": "not in payload"})
                summary["not_in_payload"][a["reason"]] = summary["not_in_payload"].get(a["reason"], 0) + 1
                continue
            summary["evaluations"] += 1
            result = gb.eval_feature(experiment)
            summary["sdk_sources"][result.source] = summary["sdk_sources"].get(result.source, 0) + 1
            if result.source == "experiment":
                sdk_variant = features[experiment][result.experimentResult.variationId]
            elif result.source == "force":
                sdk_variant = a["variant"] if a["reason"] == "forced" and result.value == a["paywall"] else "(force rule)"
            else:
                sdk_variant = None
            same_paywall = sdk_variant is None or result.value == a["paywall"]
            if sdk_variant != a["variant"] or not same_paywall:
                summary["mismatches"] += 1
                if len(samples) < 10:
                    samples.append({"user": user, "attributes": attributes, "experiment": experiment,
                                    "assign": a["variant"], "reason": a["reason"], "sdk": sdk_variant, "sdk_source": result.source,
                                    "same_paywall": same_paywall})
    summary["samples"] = samples
    return summary


def main():
    gb = GrowthBook(api_host=f"http://127.0.0.1:{PORT}", client_key=CLIENT_KEY)
    gb.load_features()
    # The payload as served, read directly for the variant keys (meta) and the forced users.
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/api/features/{CLIENT_KEY}") as response:
        payload = json.loads(response.read())
    if not gb.get_features() or set(gb.get_features()) != set(payload["features"]):
        print(json.dumps({"error": "the SDK did not load the served features"}))
        return 1
    features = {}
    forced_ids = set()
    for key, feature in payload["features"].items():
        for rule in feature["rules"]:
            if "force" in rule:
                forced_ids.add(rule["condition"]["id"])
            else:
                features[key] = [m["key"] for m in rule["meta"]]
    forced_ids = sorted(forced_ids)

    rng = random.Random(SEED)
    users = list(make_users(rng, sorted(forced_ids)))
    workers = 2
    chunks = [users[i::workers] for i in range(workers)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.starmap(compare, [(chunk, features) for chunk in chunks])
    summary = {"users": 0, "evaluations": 0, "mismatches": 0, "sdk_sources": {}, "assign_reasons": {},
               "features": sorted(features), "forced_ids": len(forced_ids), "not_in_payload": {}}
    samples = []
    for part in parts:
        for key in ("users", "evaluations", "mismatches"):
            summary[key] += part[key]
        for key in ("sdk_sources", "assign_reasons", "not_in_payload"):
            for name, n in part[key].items():
                summary[key][name] = summary[key].get(name, 0) + n
        samples += part["samples"][:5]
    summary["samples"] = samples
    print(json.dumps(summary, ensure_ascii=False, sort_keys=True))
    return 0 if summary["mismatches"] == 0 and summary["users"] == USERS else 1


if __name__ == "__main__":
    sys.exit(main())
