"""GrowthBook's Python SDK against a live `abctl serve`: for every generated user, the variant the
SDK picks from GET /api/features/{clientKey} must be the one POST /v1/assign answers; for every
`placement:ID` feature, show-or-not, variant and paywall must be what POST /v1/assign with that
placement answers; each holdout feature must give the arm the answer's `holdouts` name.

Run by Tests/EndToEndTests/GrowthBookPayloadTests.swift with the test venv's python:
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
SESSIONS = [0, 3, 5, 12, "7", None, MISSING]
ID_FORMS = ["u{}", "us\u00e9r-{}", "\u7528\u6237{}", "\U0001F426{}", "Zo\u00eb {}", "{}", "\u05d0-{}", "UPPER-{}"]


FORCED_EVERY = 29


def pick(rng, values):
    return values[rng.randrange(len(values))]


def make_users(rng, forced_ids):
    for i in range(USERS):
        # One user in FORCED_EVERY is a forced one, so that forced answers come often enough to
        # be tested on (100 at least of each way in) in a run of make test's size.
        if forced_ids and i % FORCED_EVERY == 0:
            user = forced_ids[(i // FORCED_EVERY) % len(forced_ids)]
        else:
            user = pick(rng, ID_FORMS).format(rng.randrange(10**9))
        attributes = {}
        for key, values in (("platform", PLATFORMS), ("country", COUNTRIES), ("language", LANGUAGES),
                            ("app_version", VERSIONS), ("new_user", NEW_USER), ("plan", PLANS), ("sessions", SESSIONS)):
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
                if status not in (200, 400):
                    raise RuntimeError(f"/v1/assign answered {status}: {body[:300]!r}")
                yield status, json.loads(body)


def no_paywall(value):
    """A feature value with no paywall: GrowthBook reads a null force as no force, so abctl writes false."""
    return value is None or value is False


def wrongly_typed(attributes):
    """The known attributes whose value is of the wrong type (strings, new_user a boolean; null is
    absent): /v1/assign answers 400 naming one of them, where the SDK would evaluate its condition."""
    bad = {key for key in ("platform", "country", "language", "app_version")
           if attributes.get(key) is not None and not isinstance(attributes[key], str)}
    if attributes.get("new_user") is not None and not isinstance(attributes["new_user"], bool):
        bad.add("new_user")
    return bad


def clean(attributes):
    return {k: v for k, v in attributes.items() if k not in wrongly_typed(attributes)}


def tally(table, key):
    table[key] = table.get(key, 0) + 1


def compare(users, features, placements, holdouts):
    """One worker: its own SDK instance loaded from the server, its own keep-alive connection."""
    os.nice(10)   # an oracle: let the other tests of a parallel run have the CPU first
    # The SDK loads the payload from the server; the instance that evaluates holds what it loaded and no
    # client key. One with a client key reloads its cached payload before every evaluation and rebuilds
    # every feature from it, the same features each time (about a third of this script's time, profiled).
    loader = GrowthBook(api_host=f"http://127.0.0.1:{PORT}", client_key=CLIENT_KEY)
    loader.load_features()
    gb = GrowthBook(features=loader.get_features())
    client = PipelinedClient()
    per_user = 1 + len(placements)
    bodies = []
    for u, a in users:
        # A user with a wrongly typed known attribute is sent twice: as is (a 400), then without those
        # attributes, which is what is compared with the SDK.
        for attributes in ([a, clean(a)] if wrongly_typed(a) else [a]):
            bodies.append({"user_id": u, "attributes": attributes})
            bodies += [{"user_id": u, "attributes": attributes, "placement": p} for p in placements]
    answers = client.assign_all(bodies)
    summary = {"users": 0, "refused_wrong_type": 0, "evaluations": 0, "mismatches": 0, "sdk_sources": {}, "assign_reasons": {}, "not_in_payload": {},
               "placement_evaluations": 0, "placement_reasons": {}, "placement_sources": {}, "holdout_arms": {}}
    samples = []

    def mismatch(sample):
        summary["mismatches"] += 1
        if len(samples) < 10:
            samples.append(sample)

    for user, attributes in users:
        summary["users"] += 1
        bad = wrongly_typed(attributes)
        if bad:
            # Refused, naming a wrongly typed attribute, in both forms.
            summary["refused_wrong_type"] += 1
            for status, body in [next(answers) for _ in range(per_user)]:
                field = (body.get("error") or {}).get("field", "") if status == 400 else ""
                if status != 400 or field.removeprefix("attributes.") not in bad:
                    mismatch({"user": user, "attributes": attributes, "expected": "400 naming one of " + str(sorted(bad)),
                              "status": status, "body": body})
            attributes = clean(attributes)
        replies = [next(answers) for _ in range(per_user)]
        if any(status != 200 for status, _ in replies):
            mismatch({"user": user, "attributes": attributes, "unexpected": [body for status, body in replies if status != 200]})
            continue
        answer = replies[0][1]
        placement_answers = [body for _, body in replies[1:]]
        gb.set_attributes({**attributes, "id": user})
        # Holdouts: the feature's value is the arm the answer names (none when the holdout does not take the user).
        arms = {h["experiment"]: h["variant"] for h in answer["holdouts"]}
        for h in holdouts:
            value = gb.eval_feature(h).value
            tally(summary["holdout_arms"], str(value))
            if value != arms.get(h):
                mismatch({"user": user, "attributes": attributes, "holdout": h, "assign": arms.get(h), "sdk": value})
        for placement, a in zip(placements, placement_answers):
            summary["placement_evaluations"] += 1
            tally(summary["placement_reasons"], a["reason"])
            result = gb.eval_feature("placement:" + placement)
            tally(summary["placement_sources"], result.source)
            shows = not no_paywall(result.value)
            ok = shows == a["show_paywall"] and (not shows or result.value == a["paywall"])
            if result.source == "experiment":
                sdk_variant = result.experiment.meta[result.experimentResult.variationId]["key"]
                ok = ok and sdk_variant == a["variant"] and a["in_experiment"]
            else:
                sdk_variant = None
                ok = ok and (a["variant"] is None or a["reason"] == "forced")
            if not ok:
                mismatch({"user": user, "attributes": attributes, "placement": placement, "assign": a, "sdk": result.value,
                          "sdk_variant": sdk_variant, "sdk_source": result.source})
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
                # A forced user's variant; a held-out user gets the control's paywall, a shipped one the winner's, with no variant.
                forced_value = None if no_paywall(result.value) else result.value
                if forced_value == a["paywall"] and a["reason"] in ("forced", "holdout", "shipped"):
                    sdk_variant = a["variant"]
                else:
                    sdk_variant = "(force rule)"
            else:
                sdk_variant = None
            same_paywall = sdk_variant is None or (None if no_paywall(result.value) else result.value) == a["paywall"]
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
    # The instances that evaluate carry the features alone (compare): a payload with more would be
    # evaluated without it.
    others = set(payload) - {"status", "features", "dateUpdated"}
    if others:
        print(json.dumps({"error": f"payload sections the comparison leaves out: {sorted(others)}"}))
        return 1
    features = {}
    forced_ids = set()
    placements = []
    holdouts = []

    def user_ids(condition):
        # {"id": USER} on its own or inside an $and.
        if isinstance(condition, dict):
            if isinstance(condition.get("id"), str):
                yield condition["id"]
            for part in condition.get("$and", []):
                yield from user_ids(part)

    for key, feature in payload["features"].items():
        if key.startswith("placement:"):
            placements.append(key[len("placement:"):])
        for rule in feature["rules"]:
            forced_ids.update(user_ids(rule.get("condition")))
            if "meta" in rule and not key.startswith("placement:"):
                if rule["variations"] == ["holdout", "general"]:
                    holdouts.append(key)
                else:
                    features[key] = [m["key"] for m in rule["meta"]]
        if key not in features and not key.startswith("placement:") and key not in holdouts:
            features[key] = None   # a shipped experiment: force rules only
    forced_ids = sorted(forced_ids)

    rng = random.Random(SEED)
    users = list(make_users(rng, sorted(forced_ids)))
    workers = 2
    chunks = [users[i::workers] for i in range(workers)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.starmap(compare, [(chunk, features, placements, holdouts) for chunk in chunks])
    summary = {"users": 0, "refused_wrong_type": 0, "evaluations": 0, "mismatches": 0, "sdk_sources": {}, "assign_reasons": {},
               "features": sorted(features), "forced_ids": len(forced_ids), "not_in_payload": {},
               "placements": sorted(placements), "holdouts": sorted(holdouts), "placement_evaluations": 0,
               "placement_reasons": {}, "placement_sources": {}, "holdout_arms": {}}
    samples = []
    for part in parts:
        for key in ("users", "refused_wrong_type", "evaluations", "mismatches", "placement_evaluations"):
            summary[key] += part[key]
        for key in ("sdk_sources", "assign_reasons", "not_in_payload", "placement_reasons", "placement_sources", "holdout_arms"):
            for name, n in part[key].items():
                summary[key][name] = summary[key].get(name, 0) + n
        samples += part["samples"][:5]
    summary["samples"] = samples
    print(json.dumps(summary, ensure_ascii=False, sort_keys=True))
    return 0 if summary["mismatches"] == 0 and summary["users"] == USERS else 1


if __name__ == "__main__":
    sys.exit(main())
