#!/usr/bin/env python3
"""The example out-of-tree plugins as scheduler extenders (their twins): the same decisions
over HTTP. /filter is pair-anti-affinity (pods on each node read with kubectl), /prioritize is
node-label-score on the extender scale (0..10: raw x 10 / max over the nodes given, truncated).

usage: plugin-extender-twin.py PORT PAIR_ARGS_JSON SCORE_ARGS_JSON
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import extender_http  # noqa: E402  (the HTTP side)

PORT = int(sys.argv[1])
PAIR = json.loads(sys.argv[2])
SCORE = json.loads(sys.argv[3])


def conflict(a, b):
    return any((x == a and y == b) or (x == b and y == a) for x, y in PAIR["conflicts"])


def pods_by_node():
    out = subprocess.run(["kubectl", "get", "pods", "-A", "-o", "json"], check=True, capture_output=True).stdout
    by = {}
    for p in json.loads(out)["items"]:
        node = p["spec"].get("nodeName")
        if node:
            by.setdefault(node, []).append(p)
    return by


def labels(obj):
    return obj.get("metadata", {}).get("labels") or {}


def refuses(pod, node, by):
    role_key, group_key = PAIR["roleLabel"], PAIR.get("groupLabel")
    role = labels(pod).get(role_key)
    group = labels(pod).get(group_key) if group_key else ""
    if role is None or group is None:
        return None
    for other in by.get(node, []):
        orole = labels(other).get(role_key)
        ogroup = labels(other).get(group_key) if group_key else ""
        if orole is None or ogroup != group or other["metadata"]["namespace"] != pod["metadata"]["namespace"]:
            continue
        if other["metadata"].get("uid") == pod["metadata"].get("uid"):
            continue
        if conflict(role, orole):
            return "node(s) had a %s and this pod is a %s of the same group" % (orole, role)
    return None


def value(s):
    try:
        v = int(s, 10)
    except (TypeError, ValueError):
        return 0
    return v if 0 <= v <= 10**12 else 0


def answer(path, args):
    pod, nodes = args["Pod"], (args.get("Nodes") or {}).get("items") or []
    if path.endswith("/filter"):
        by = pods_by_node()
        keep, failed = [], {}
        for n in nodes:
            why = refuses(pod, n["metadata"]["name"], by)
            if why:
                failed[n["metadata"]["name"]] = why
            else:
                keep.append(n)
        return {"Nodes": {"items": keep}, "FailedNodes": failed, "Error": ""}
    raw = [(n["metadata"]["name"],
            sum(l.get("weight", 1) * value(labels(n).get(l["key"])) for l in SCORE["labels"]))
           for n in nodes]
    top = max([r for _, r in raw] + [0])
    return [{"Host": h, "Score": (r * 10 // top) if top else 0} for h, r in raw]


extender_http.serve(PORT, answer)
