#!/usr/bin/env python3
"""Writes the near-tie differential's data (nodes.json and, per phase, phase.json,
policy.json and workload.yaml) next to this file. Run it again after editing; the output
is deterministic.

Each phase's workload is drawn pod by pod (seeded): small requests (50m-2 CPU, 32Mi-4Gi),
some without requests, images from the nodes' sets. A model of kube-scheduler v1.20's
scores (its integer arithmetic, MaxNodeScore 100) places each candidate on the simulated
nodes, and a candidate is kept only when one node is best, by at most NEAR points over the
runner-up when the phase allows it: near-ties, where a 0..10 scale, a missed division
point or a rounding step would pick another node, but never exact ties, which both
schedulers settle at random. The test itself compares the two schedulers, not this model."""
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
MI = 1024 * 1024
GI = 1024 * MI
MB = MI  # ImageLocality's "mb" is 1024 * 1024

NODES = [  # name, cpu (cores), memory (Gi), images
    ("nt-0", 1, 2, ["nt/app-a:v1"]),
    ("nt-1", 2, 6, ["nt/app-b:v1"]),
    ("nt-2", 3, 4, ["nt/app-c:v1"]),
    ("nt-3", 4, 12, ["nt/app-d:v1"]),
    ("nt-4", 6, 8, ["nt/app-e:v1"]),
    ("nt-5", 8, 30, ["nt/app-f:v1"]),
    ("nt-6", 12, 20, ["nt/app-g:v1"]),
    ("nt-7", 16, 48, ["nt/app-h:v1"]),
]
# Every image is on one node only: v1.20 refreshes a node's image counts in its snapshot
# only when that node changes, so an image on several nodes scores by how many had it at
# each node's last update (heartbeats, pods bound), which no second scheduler can repeat.
IMAGE_SIZE = {"nt/app-a:v1": 400 * 10**6, "nt/app-b:v1": 700 * 10**6, "nt/app-c:v1": 250 * 10**6,
              "nt/app-d:v1": 900 * 10**6, "nt/app-e:v1": 550 * 10**6, "nt/app-f:v1": 300 * 10**6,
              "nt/app-g:v1": 800 * 10**6, "nt/app-h:v1": 650 * 10**6}
IMAGES = sorted(IMAGE_SIZE) + ["nt/none:v1"]
CPUS = ["50m", "100m", "150m", "200m", "250m", "300m", "400m", "500m", "750m", "1", "1500m", "2"]
MEMS = ["32Mi", "64Mi", "128Mi", "256Mi", "512Mi", "768Mi", "1Gi", "1536Mi", "2Gi", "3Gi", "4Gi"]
SHAPE = [(0, 2), (30, 8), (60, 5), (100, 10)]   # requestedToCapacityRatio (0..10 scores)
RTCR_RESOURCES = [("cpu", 2), ("memory", 1)]
EXT_WEIGHT = 2


def milli(q):
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def mem(q):
    for suf, f in (("Gi", GI), ("Mi", MI)):
        if q.endswith(suf):
            return int(q[: -len(suf)]) * f
    return int(q)


def trunc_div(a, b):  # Go's integer division
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def least(req, cap):
    return 0 if cap == 0 or req > cap else (cap - req) * 100 // cap


def most(req, cap):
    return 0 if cap == 0 or req > cap else req * 100 // cap


def balanced(rc, cc, rm, cm):
    fc, fm = rc / cc, rm / cm
    if fc >= 1 or fm >= 1:
        return 0
    return int((1 - abs(fc - fm)) * 100)


def broken_linear(p):
    shape = [(u, s * 10) for u, s in SHAPE]
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return s
            u0, s0 = shape[i - 1]
            return s0 + trunc_div((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def rtcr(reqs, caps):
    score = wsum = 0
    for (name, w) in RTCR_RESOURCES:
        req, cap = reqs[name], caps[name]
        s = broken_linear(100) if cap == 0 or req > cap else broken_linear(100 - (cap - req) * 100 // cap)
        if s > 0:
            score += s * w
            wsum += w
    if wsum == 0:
        return 0
    x = score / wsum
    return int(x + 0.5)  # math.Round on a positive value


def image_locality(pod_images, node_images):
    total = len(NODES)
    s = 0
    for im in pod_images:
        if im in node_images:
            n = sum(1 for nd in NODES if im in nd[3])
            s += int(IMAGE_SIZE[im] * (n / total))
    lo, hi = 23 * MB, 1000 * MB * len(pod_images)
    s = min(max(s, lo), hi)
    return 100 * (s - lo) // (hi - lo)


def extender_score(pod, node):  # tests/e2e/45-scheduler-near-ties.sh serves the same
    return (sum(map(ord, pod)) + 3 * int(node.split("-")[1])) % 11


PHASES = {
    "least-balanced": {
        "description": "LeastRequested + BalancedResourceAllocation",
        "priorities": [("LeastRequestedPriority", 1), ("BalancedResourceAllocation", 1)],
    },
    "most-requested": {
        "description": "MostRequested",
        "priorities": [("MostRequestedPriority", 1)],
    },
    "requested-to-capacity": {
        "description": "requestedToCapacityRatio, shape 0:2 30:8 60:5 100:10, cpu weight 2, memory 1",
        "priorities": [("RequestedToCapacityRatioPriority", 1)],
    },
    "image-locality": {
        "description": "ImageLocality beside LeastRequested",
        "priorities": [("ImageLocalityPriority", 1), ("LeastRequestedPriority", 1)],
    },
    "extender": {
        "description": "an extender's prioritize (weight 2) beside LeastRequested",
        "priorities": [("LeastRequestedPriority", 1)],
        "extender": True,
    },
    "default-policy": {
        "description": "the documented default policy (deploy/policy.cfg)",
        "policy": "deploy/policy.cfg",
        # with plain pods (no services, controllers, affinity, taints) only these differ per node
        "priorities": [("LeastRequestedPriority", 1), ("BalancedResourceAllocation", 1),
                       ("ImageLocalityPriority", 1)],
    },
}
PODS_PER_PHASE = 20
NEAR = 6


def totals(phase, pod, nodes_state):
    out = {}
    for name, cpu, memg, images in NODES:
        st = nodes_state[name]
        caps = {"cpu": cpu * 1000, "memory": memg * GI}
        if st["cpu"] + pod["cpu"] > caps["cpu"] or st["mem"] + pod["mem"] > caps["memory"]:
            continue
        rc, rm = st["nz_cpu"] + pod["nz_cpu"], st["nz_mem"] + pod["nz_mem"]
        t = 0
        for prio, w in PHASES[phase]["priorities"]:
            if prio == "LeastRequestedPriority":
                s = (least(rc, caps["cpu"]) + least(rm, caps["memory"])) // 2
            elif prio == "MostRequestedPriority":
                s = (most(rc, caps["cpu"]) + most(rm, caps["memory"])) // 2
            elif prio == "BalancedResourceAllocation":
                s = balanced(rc, caps["cpu"], rm, caps["memory"])
            elif prio == "RequestedToCapacityRatioPriority":
                s = rtcr({"cpu": rc, "memory": rm}, caps)
            elif prio == "ImageLocalityPriority":
                s = image_locality(pod["images"], images)
            t += s * w
        if PHASES[phase].get("extender"):
            t += extender_score(pod["name"], name) * EXT_WEIGHT * 10
        out[name] = t
    return out


def draw(phase, rng):
    state = {n[0]: {"cpu": 0, "mem": 0, "nz_cpu": 0, "nz_mem": 0} for n in NODES}
    pods, near = [], 0
    i = 0
    while len(pods) < PODS_PER_PHASE:
        i += 1
        name = "t%02d" % (len(pods) + 1)
        cpu = rng.choice(CPUS) if rng.random() > 0.1 else ""
        memq = rng.choice(MEMS) if rng.random() > 0.1 else ""
        images = [rng.choice(IMAGES)] + ([rng.choice(IMAGES)] if rng.random() < 0.2 else [])
        pod = {"name": name, "cpu_q": cpu, "mem_q": memq, "images": images,
               "cpu": milli(cpu) if cpu else 0, "mem": mem(memq) if memq else 0}
        # non-zero requests are per container: the second container requests nothing
        extra = len(images) - 1
        pod["nz_cpu"] = (pod["cpu"] if cpu else 100) + 100 * extra
        pod["nz_mem"] = (pod["mem"] if memq else 200 * MI) + 200 * MI * extra
        t = totals(phase, pod, state)
        if len(t) < 2:
            continue
        ranked = sorted(t.values(), reverse=True)
        margin = ranked[0] - ranked[1]
        if margin == 0:
            continue
        # prefer near-ties: a wide margin is kept only now and then
        if margin > NEAR and rng.random() < 0.7:
            continue
        near += margin <= NEAR
        best = max(t, key=t.get)
        st = state[best]
        st["cpu"] += pod["cpu"]; st["mem"] += pod["mem"]
        st["nz_cpu"] += pod["nz_cpu"]; st["nz_mem"] += pod["nz_mem"]
        pod["expect"] = best
        pod["margin"] = margin
        pods.append(pod)
    return pods, near


def policy_of(phase):
    prios = []
    for name, w in PHASES[phase]["priorities"]:
        p = {"name": name, "weight": w}
        if name == "RequestedToCapacityRatioPriority":
            p["argument"] = {"requestedToCapacityRatioArguments": {
                "shape": [{"utilization": u, "score": s} for u, s in SHAPE],
                "resources": [{"name": n, "weight": w} for n, w in RTCR_RESOURCES]}}
        prios.append(p)
    pol = {"kind": "Policy", "apiVersion": "v1",
           "predicates": [{"name": "PodFitsResources"}, {"name": "CheckNodeUnschedulable"},
                          {"name": "PodToleratesNodeTaints"}],
           "priorities": prios}
    if PHASES[phase].get("extender"):
        pol["extenders"] = [{"urlPrefix": "@EXT_URL@", "prioritizeVerb": "prioritize",
                             "weight": EXT_WEIGHT, "nodeCacheCapable": False}]
    return pol


def main():
    nodes = [{"name": n, "capacity": {"cpu": str(c), "memory": "%dGi" % m},
              "labels": {"topology.kubernetes.io/zone": "z-%d" % (i % 3)},
              "images": [{"names": [im], "sizeBytes": IMAGE_SIZE[im]} for im in ims]}
             for i, (n, c, m, ims) in enumerate(NODES)]
    with open(os.path.join(HERE, "nodes.json"), "w") as f:
        json.dump(nodes, f, indent=1)
        f.write("\n")
    for k, phase in enumerate(PHASES):
        d = os.path.join(HERE, phase)
        os.makedirs(d, exist_ok=True)
        pods, near = draw(phase, random.Random(1000 + k))
        meta = {"description": PHASES[phase]["description"],
                "policy": PHASES[phase].get("policy", "tests/data/sched-near-ties/%s/policy.json" % phase)}
        with open(os.path.join(d, "phase.json"), "w") as f:
            json.dump(meta, f)
            f.write("\n")
        if "policy" not in PHASES[phase]:
            with open(os.path.join(d, "policy.json"), "w") as f:
                json.dump(policy_of(phase), f, indent=1)
                f.write("\n")
        with open(os.path.join(d, "workload.yaml"), "w") as f:
            f.write("# Generated by ../generate.py (%d pods, %d within %d points of the runner-up\n"
                    "# in its model of v1.20). @NS@ and @SCHED@ are filled in per run.\n"
                    % (len(pods), near, NEAR))
            for j, p in enumerate(pods):
                if j:
                    f.write("---\n")
                req = ", ".join(x for x in (("cpu: %s" % p["cpu_q"]) if p["cpu_q"] else "",
                                            ("memory: %s" % p["mem_q"]) if p["mem_q"] else "") if x)
                f.write("# model: %s by %d\n" % (p["expect"], p["margin"]))
                f.write("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: \"@NS@\"}\n"
                        "spec:\n  schedulerName: \"@SCHED@\"\n  containers:\n" % p["name"])
                for c, im in enumerate(p["images"]):
                    f.write("  - name: c%d\n    image: %s\n" % (c, im))
                    if c == 0 and req:
                        f.write("    resources: {requests: {%s}}\n" % req)
        print(phase, len(pods), "pods,", near, "near-ties")


main()
