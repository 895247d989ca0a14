#!/usr/bin/env python3
"""Helper of tests/bench/e2e-preempt.sh, on top of e2e-sched.py (same API client, watcher and
measurements):

  e2e-preempt.py fill NS NODES PREFIX PER_NODE   PER_NODE low-priority 1-cpu pods bound to
                                                 each node PREFIX-0 .. PREFIX-(NODES-1)
  e2e-preempt.py create NS COUNT SCHEDULER       COUNT pending high-priority 1-cpu pods
  e2e-preempt.py run ... / delete NS / table F   as e2e-sched.py
  e2e-preempt.py victims NS                      how many pods of NS are gone or deleting
"""
import importlib.util
import json
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "e2e_sched", os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e-sched.py"))
es = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(es)

FILL = {}


def manifest(ns, name, scheduler, index=0):
    m = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "e2e-preempt"}},
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "app", "image": "e2e-preempt/pause:1",
                            "resources": {"requests": {"cpu": "1", "memory": "16Mi"}}}],
        },
    }
    if FILL:
        m["spec"]["nodeName"] = "%s-%d" % (FILL["prefix"], index // FILL["per_node"])
        m["spec"]["priorityClassName"] = "e2e-preempt-low"
    else:
        m["spec"]["schedulerName"] = scheduler
        m["spec"]["priorityClassName"] = "e2e-preempt-high"
    return m


es.pod_manifest = manifest


def victims(ns, total):
    api = es.Api()
    st, body = api.call1("GET", "/api/v1/namespaces/%s/pods" % ns)
    if st != 200:
        sys.exit("e2e-preempt: cannot list %s: %d" % (ns, st))
    alive = [p for p in json.loads(body)["items"] if not p["metadata"].get("deletionTimestamp")]
    print(total - len(alive))


def main(argv):
    if len(argv) == 6 and argv[1] == "fill":
        FILL.update(prefix=argv[4], per_node=int(argv[5]))
        es.cmd_create(argv[2], int(argv[3]) * int(argv[5]), "")
        return 0
    if len(argv) == 4 and argv[1] == "victims":
        victims(argv[2], int(argv[3]))
        return 0
    return es.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
