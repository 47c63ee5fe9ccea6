#!/usr/bin/env python3
"""Extra assignment cases computed by GrowthBook's Python SDK (our oracle beyond the JS cases,
non-ASCII user ids included).

Run: python3 make_extra_cases.py > growthbook-extra-cases.json   (pip install growthbook)

Sections:
  hash:      [seed, value, version, expected]          non-ASCII ids and seeds
  fnv1a32:   [string, expected uint32]
  inNamespace: [userId, [namespaceId, start, end], expected]
  assign:    [seed, userId, version, weights, coverage, expected index]
             weights are raw experiment weights; the oracle gets them divided by their sum,
             as the Assigner does. Includes ids whose hash lands exactly on a range edge.
"""
import json
from growthbook.core import fnv1a32, gbhash, getBucketRanges, chooseVariation, inNamespace

ids = [
    "é", "café", "cafe\u0301", "naïve-user", "Zoë", "Ünïcödé-42", "ß", "İstanbul",
    "用户123", "ユーザー", "사용자", "中文用户名字很长很长很长",
    "😀", "👍🏽", "👨‍👩‍👧‍👦", "user-🦜-1", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\U0001F600\U0001F601",
    "\u00a0", "tab\tid", "new\nline", "quote\"id", "back\\slash", "",
    "mixed-ascii-é-中-😀-end", "ñandú", "Ελληνικά", "русский", "עברית", "العربية",
    "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0010FFFF",
]
seeds = ["", "seed", "chorus-paywall-copy", "种子", "🌱", "é"]

out = {"hash": [], "fnv1a32": [], "inNamespace": [], "assign": []}
for s in ids:
    out["fnv1a32"].append([s, fnv1a32(s)])
for seed in seeds:
    for s in ids:
        for v in (1, 2):
            out["hash"].append([seed, s, v, gbhash(seed, s, v)])
for s in ids:
    for ns in (["paywall", 0.0, 0.5], ["paywall", 0.5, 1.0], ["日本", 0.2, 0.7], ["🎯", 0.0, 0.3]):
        out["inNamespace"].append([s, ns, inNamespace(s, tuple(ns))])

configs = [
    ([1, 1], 1.0), ([1, 1], 0.5), ([1, 1, 1], 1.0), ([1, 1, 1, 1], 1.0), ([1, 1, 1, 1], 0.4),
    ([2, 1, 1], 1.0), ([0.3, 0.7], 0.9), ([5, 3, 2], 0.25), ([1, 1], 0.0),
]

def expected(seed, uid, version, weights, coverage):
    total = sum(weights)
    norm = [w / total for w in weights]
    ranges = getBucketRanges(len(weights), coverage, norm)
    return chooseVariation(gbhash(seed, uid, version), ranges)

for weights, coverage in configs:
    for uid in ids:
        for version in (1, 2):
            out["assign"].append(["edge-seed", uid, version, weights, coverage, expected("edge-seed", uid, version, weights, coverage)])

# Ids whose hash sits exactly on a range edge (start or end of a range), both versions.
for weights, coverage in configs:
    total = sum(weights)
    norm = [w / total for w in weights]
    ranges = getBucketRanges(len(weights), coverage, norm)
    edges = sorted({b for r in ranges for b in r if 0 <= b < 1})
    for version in (1, 2):
        found = {}
        i = 0
        while len(found) < len(edges) and i < 300000:
            uid = f"edge-{i}"
            h = gbhash("edge-seed", uid, version)
            if h in edges and h not in found:
                found[h] = uid
            i += 1
        for h, uid in sorted(found.items()):
            out["assign"].append(["edge-seed", uid, version, weights, coverage, expected("edge-seed", uid, version, weights, coverage)])

print(json.dumps(out, ensure_ascii=False, indent=0))
