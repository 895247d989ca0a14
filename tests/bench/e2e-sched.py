#!/usr/bin/env python3
"""Helper of tests/bench/e2e-sched.sh (the end-to-end scheduler benchmark): the parts that
need an API client or sub-second timestamps. Credentials come from `kubectl config view
--raw --minify --flatten` (so KUBECONFIG and the plane's kubectl decide where it talks to).

  e2e-sched.py create NS COUNT SCHEDULER_NAME   namespace + COUNT pending ownerless pods
                                                (parallel POSTs on keep-alive connections)
  e2e-sched.py delete NS                        every pod of NS, grace period 0, waits until
                                                the namespace has none
  e2e-sched.py run NS COUNT LABEL OUT [--kill] [--log FILE] [--timeout S] -- CMD...
        watches NS for bindings (from a resourceVersion taken before CMD starts), starts CMD,
        records when each pod is first seen bound, samples /proc/PID (CPU, VmHWM, VmRSS)
        every 100 ms and once more when the last pod is bound, then stops CMD (--kill: by
        its PID, SIGTERM then SIGKILL) or waits for it to exit, and appends one JSON line to
        OUT
  e2e-sched.py table OUT                        the results as a Markdown table
"""

import base64
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Api:
    def __init__(self):
        cfg = json.loads(subprocess.check_output(
            ["kubectl", "config", "view", "--raw", "--minify", "--flatten", "-o", "json"]))
        cluster = cfg["clusters"][0]["cluster"]
        user = cfg["users"][0]["user"]
        u = urllib.parse.urlsplit(cluster["server"])
        self.host, self.port = u.hostname, u.port or 443
        self.ctx = ssl.create_default_context()
        self.tmp = tempfile.TemporaryDirectory(prefix="e2e-sched-")

        def material(key):
            if user.get(key + "-data") or cluster.get(key + "-data"):
                data = base64.b64decode(user.get(key + "-data") or cluster.get(key + "-data"))
                path = os.path.join(self.tmp.name, key)
                with open(path, "wb") as f:
                    f.write(data)
                return path
            return user.get(key) or cluster.get(key)

        ca = material("certificate-authority")
        if ca:
            self.ctx.load_verify_locations(cafile=ca)
        if cluster.get("insecure-skip-tls-verify"):
            self.ctx.check_hostname = False
            self.ctx.verify_mode = ssl.CERT_NONE
        cert, key = material("client-certificate"), material("client-key")
        if cert and key:
            self.ctx.load_cert_chain(cert, key)
        self.headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if user.get("token"):
            self.headers["Authorization"] = "Bearer " + user["token"]

    def conn(self, timeout=60):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def call(self, conn, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=self.headers)
        r = conn.getresponse()
        return r.status, r.read()

    def call1(self, method, path, body=None):
        c = self.conn()
        try:
            return self.call(c, method, path, body)
        finally:
            c.close()


# E2E_POD_KIND=anti: every pod carries required anti-affinity on the hostname against its
# group (E2E_ANTI_GROUP_SIZE pods per group, default 500), the expensive case of inter-pod anti-affinity.
POD_KIND = os.environ.get("E2E_POD_KIND", "plain")
ANTI_GROUP_SIZE = int(os.environ.get("E2E_ANTI_GROUP_SIZE", "500"))


def pod_manifest(ns, name, scheduler, index=0):
    m = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "e2e-sched"}},
        "spec": {
            "schedulerName": scheduler,
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "app", "image": "e2e-sched/pause:1",
                "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
            }],
        },
    }
    if POD_KIND == "anti":
        group = "g%d" % (index // ANTI_GROUP_SIZE)
        m["metadata"]["labels"]["group"] = group
        m["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"group": group}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return m


def existing_manifest(ns, i, node):
    """Existing pod i, already bound to node: 200 groups; every 10th pod has required
    anti-affinity on the hostname against its own group (as bench-sched-default's)."""
    group = "old-%03d" % (i % 200)
    m = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "old-%06d" % i, "namespace": ns, "labels": {"app": group}},
        "spec": {
            "nodeName": node,
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "app", "image": "e2e-sched/pause:1",
                "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}},
            }],
        },
    }
    if i % 10 == 0:
        m["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": group}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return m


def cmd_create(ns, count, scheduler, threads=8, existing_nodes=None):
    """Creates count pending pods for scheduler, or with existing_nodes (prefix, n) count pods
    already bound round-robin to nodes prefix-0 .. prefix-(n-1)."""
    api = Api()
    # A namespace of the same name from an earlier invocation may still be terminating.
    deadline = time.monotonic() + 300
    while True:
        st, body = api.call1("GET", "/api/v1/namespaces/%s" % ns)
        if st == 404 or (st == 200 and json.loads(body).get("status", {}).get("phase") != "Terminating"):
            break
        if time.monotonic() > deadline:
            sys.exit("e2e-sched: namespace %s is still terminating" % ns)
        time.sleep(0.5)
    st, body = api.call1("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": ns}})
    if st not in (201, 409):
        sys.exit("e2e-sched: cannot create namespace %s: %d %s" % (ns, st, body[:300]))
    # The ServiceAccount admission plugin refuses pods until the namespace's default
    # ServiceAccount and its token exist.
    deadline = time.monotonic() + 120
    while True:
        st, body = api.call1("GET", "/api/v1/namespaces/%s/serviceaccounts/default" % ns)
        if st == 200 and json.loads(body).get("secrets"):
            break
        if time.monotonic() > deadline:
            sys.exit("e2e-sched: namespace %s has no default service account token" % ns)
        time.sleep(0.2)
    errors = []
    t0 = time.monotonic()

    def worker(k):
        c = api.conn()
        for i in range(k, count, threads):
            if existing_nodes:
                m = existing_manifest(ns, i, "%s-%d" % (existing_nodes[0], (i * 7919) % existing_nodes[1]))
            else:
                m = pod_manifest(ns, "p-%05d" % i, scheduler, i)
            for attempt in range(20):
                try:
                    st, body = api.call(c, "POST", "/api/v1/namespaces/%s/pods" % ns, m)
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = api.conn()
                    st, body = 0, b"connection failed"
                if st in (201, 409):
                    break
                if st not in (0, 429, 500, 503, 504) and not (st == 403 and b"service account" in body):
                    errors.append("%d %s" % (st, body[:300]))
                    return
                time.sleep(0.1 * (attempt + 1))
            else:
                errors.append("%d %s" % (st, body[:300]))
                return
        c.close()

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        sys.exit("e2e-sched: creating pods in %s failed: %s" % (ns, errors[0]))
    print("created %d pods in %s in %.1f s" % (count, ns, time.monotonic() - t0))


def cmd_delete(ns, timeout=600):
    api = Api()
    t0 = time.monotonic()
    last_delete = 0.0
    while time.monotonic() - t0 < timeout:
        if time.monotonic() - last_delete > 60:
            # A large collection outlasts the request timeout (504) while the API server goes
            # on deleting: asked again once a minute until the namespace is empty.
            last_delete = time.monotonic()
            try:
                st, body = api.call1("DELETE", "/api/v1/namespaces/%s/pods" % ns,
                                     {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            except (OSError, http.client.HTTPException) as e:
                st, body = 0, repr(e).encode()
            if st not in (0, 200, 404, 429, 500, 503, 504):
                sys.exit("e2e-sched: deleting the pods of %s failed: %d %s" % (ns, st, body[:300]))
        st, body = api.call1("GET", "/api/v1/namespaces/%s/pods?limit=1" % ns)
        if st == 200 and not json.loads(body).get("items"):
            print("deleted the pods of %s in %.1f s" % (ns, time.monotonic() - t0))
            return
        time.sleep(0.5)
    sys.exit("e2e-sched: the pods of %s were not gone after %d s" % (ns, timeout))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def sample(pid):
    """(cpu seconds, VmHWM kB, VmRSS kB, RssAnon kB, RssFile kB) of a live process, None once
    it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        with open("/proc/%d/status" % pid) as f:
            status = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    kb = {k: int(v) for k, v in re.findall(r"^(VmHWM|VmRSS|RssAnon|RssFile):\s+(\d+)", status, re.M)}
    if "VmHWM" not in kb or "VmRSS" not in kb:
        return None     # a zombie: no memory left to report
    return cpu, kb["VmHWM"], kb["VmRSS"], kb.get("RssAnon", 0), kb.get("RssFile", 0)


NAME_RE = re.compile(rb'"metadata":\{"name":"([^"]+)"')
RV_RE = re.compile(rb'"resourceVersion":"(\d+)"')


class Watcher(threading.Thread):
    """Records when each pod of ns is first seen with a spec.nodeName."""

    def __init__(self, api, ns, count):
        super().__init__(daemon=True)
        self.api, self.ns, self.count = api, ns, count
        self.bound = {}
        self.done = threading.Event()
        self.error = None
        st, body = api.call1("GET", "/api/v1/namespaces/%s/pods?limit=1&fieldSelector=spec.nodeName%%21%%3D" % ns)
        if st != 200:
            raise SystemExit("e2e-sched: cannot list %s: %d %s" % (ns, st, body[:300]))
        doc = json.loads(body)
        if doc.get("items"):
            raise SystemExit("e2e-sched: %s already has bound pods" % ns)
        self.rv = doc["metadata"]["resourceVersion"]

    def run(self):
        try:
            while not self.done.is_set():
                c = self.api.conn(timeout=3600)
                c.request("GET", "/api/v1/namespaces/%s/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=3000"
                          "&fieldSelector=spec.nodeName%%21%%3D&resourceVersion=%s" % (self.ns, self.rv),
                          headers=self.api.headers)
                r = c.getresponse()
                if r.status != 200:
                    self.error = "watch: %d %s" % (r.status, r.read()[:300])
                    self.done.set()
                    return
                while True:
                    line = r.readline()
                    if not line:
                        break
                    now = time.monotonic()
                    m = RV_RE.search(line)
                    if m:
                        self.rv = m.group(1).decode()
                    if line.startswith(b'{"type":"ERROR"'):
                        self.error = "watch: %s" % line[:300]
                        self.done.set()
                        return
                    if not (line.startswith(b'{"type":"ADDED"') or line.startswith(b'{"type":"MODIFIED"')):
                        continue
                    m = NAME_RE.search(line)
                    if m and m.group(1) not in self.bound:
                        self.bound[m.group(1)] = now
                        if len(self.bound) >= self.count:
                            self.done.set()
                            return
                c.close()
        except Exception as e:  # reported by the caller
            self.error = "watch: %r" % e
            self.done.set()


PLANE = ("kube-apiserver", "etcd", "kube-controller-manager")


def plane_cpu():
    """CPU seconds used so far by each of the plane's processes (CLUSTER_DIR/pids), so a run
    can say how much of its time the API server and etcd spent on it."""
    cpu = {}
    for name in PLANE:
        try:
            with open(os.path.join(os.environ["CLUSTER_DIR"], "pids", name + ".pid")) as f:
                s = sample(int(f.read().strip()))
        except (OSError, KeyError, ValueError):
            s = None
        cpu[name] = s[0] if s else None
    return cpu


def cmd_run(ns, count, label, out, cmd, kill=False, log=None, timeout=600.0):
    api = Api()
    w = Watcher(api, ns, count)
    w.start()
    load_start = loadavg()
    plane_start = plane_cpu()
    logf = open(log, "ab") if log else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    pid = p.pid
    last = None
    exit_usage = None
    status = None
    exited_at = None
    while not w.done.is_set() and time.monotonic() - t0 <= timeout:
        if exit_usage is None:
            wpid, st, ru = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                status, exit_usage, exited_at = st, ru, time.monotonic()
                last = None     # wait4's figures are exact
            else:
                s = sample(pid)
                if s:
                    last = s
        elif time.monotonic() - exited_at > 30:
            break               # exited and the watch saw no more bindings
        w.done.wait(0.1)
    t_end = time.monotonic()
    plane_end = plane_cpu()
    if exit_usage is None:
        s = sample(pid)
        if s:
            last = s
    load_end = loadavg()
    if exit_usage is None:
        if kill:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                wpid, st, ru = os.wait4(pid, os.WNOHANG)
                if wpid == pid:
                    status, exit_usage = st, ru
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, signal.SIGKILL)
        if exit_usage is None:
            deadline = time.monotonic() + 60 if not kill else time.monotonic() + 10
            while time.monotonic() < deadline:
                wpid, st, ru = os.wait4(pid, os.WNOHANG)
                if wpid == pid:
                    status, exit_usage = st, ru
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, signal.SIGKILL)
                _, status, exit_usage = os.wait4(pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    times = sorted(w.bound.values())
    res = {
        "label": label, "pods": count, "bound": len(times),
        "start_to_all": round(times[-1] - t0, 3) if len(times) == count else None,
        "start_to_first": round(times[0] - t0, 3) if times else None,
        "first_to_last": round(times[-1] - times[0], 3) if len(times) > 1 else None,
        "rate": round((len(times) - 1) / (times[-1] - times[0]), 1) if len(times) > 1 and times[-1] > times[0] else None,
        # at the last binding (a process that exited by itself: at its exit)
        "cpu": round(last[0], 2) if last else round(exit_usage.ru_utime + exit_usage.ru_stime, 2),
        "hwm_kb": last[1] if last else exit_usage.ru_maxrss,
        "rss_kb": last[2] if last else None,
        "rss_anon_kb": last[3] if last else None,
        "rss_file_kb": last[4] if last else None,
        # over the whole life, from wait4
        "cpu_exit": round(exit_usage.ru_utime + exit_usage.ru_stime, 2),
        "maxrss_exit_kb": exit_usage.ru_maxrss,
        "exit": p.returncode,
        "load_start": load_start, "load_end": load_end,
        "waited": round(t_end - t0, 3),
        # CPU the plane's processes used from the start to the last binding
        "plane_cpu": {k: round(plane_end[k] - plane_start[k], 2) for k in PLANE
                      if plane_start[k] is not None and plane_end[k] is not None},
        "error": w.error,
    }
    with open(out, "a") as f:
        f.write(json.dumps(res) + "\n")
    print("%s: %d/%d bound%s, %s/s first to last, CPU %.2f s, VmHWM %.1f MB%s (load %s -> %s)%s" % (
        label, res["bound"], count,
        " %.2f s after start" % res["start_to_all"] if res["start_to_all"] is not None else " (incomplete)",
        res["rate"] if res["rate"] else "-", res["cpu"], res["hwm_kb"] / 1024,
        ", now RSS %.1f MB = %.1f anon + %.1f file" % (last[2] / 1024, last[3] / 1024, last[4] / 1024) if last else "",
        load_start, load_end, "; " + w.error if w.error else ""))
    return 0 if res["bound"] == count else 1


def cmd_table(out):
    rows = [json.loads(line) for line in open(out) if line.strip()]
    print("| run | pods | start -> all bound | start -> first bind | first -> last bind | CPU at last bind | "
          "API server / etcd CPU | VmHWM at last bind | max RSS at exit | load (start -> end) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        pc = r.get("plane_cpu") or {}
        print("| %s | %d/%d | %s | %s | %s | %.2f s | %s | %.1f MB | %.1f MB | %s -> %s |" % (
            r["label"], r["bound"], r["pods"],
            "%.2f s" % r["start_to_all"] if r["start_to_all"] is not None else "incomplete",
            "%.2f s" % r["start_to_first"] if r.get("start_to_first") is not None else "-",
            "%.0f pods/s" % r["rate"] if r["rate"] else "-",
            r["cpu"],
            "%s / %s s" % (pc.get("kube-apiserver", "-"), pc.get("etcd", "-")),
            r["hwm_kb"] / 1024, r["maxrss_exit_kb"] / 1024, r["load_start"], r["load_end"]))


def cmd_csv(out, case, path):
    """Appends the runs of out as rows of case to the CSV path (tools/bench-plots draws it)."""
    rows = [json.loads(line) for line in open(out) if line.strip()]
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("case,label,pods,bound,start_to_all_s,rate,cpu_s,hwm_mb,load_start,load_end\n")
        for r in rows:
            f.write("%s,%s,%d,%d,%s,%s,%.2f,%.1f,%s,%s\n" % (
                case, r["label"], r["pods"], r["bound"],
                "" if r["start_to_all"] is None else r["start_to_all"],
                "" if r["rate"] is None else r["rate"], r["cpu"], r["hwm_kb"] / 1024,
                str(r["load_start"]).replace(",", " "), str(r["load_end"]).replace(",", " ")))


def main(argv):
    if len(argv) >= 5 and argv[1] == "create":
        cmd_create(argv[2], int(argv[3]), argv[4])
    elif len(argv) == 6 and argv[1] == "existing":
        cmd_create(argv[2], int(argv[3]), None, existing_nodes=(argv[4], int(argv[5])))
    elif len(argv) == 3 and argv[1] == "delete":
        cmd_delete(argv[2])
    elif len(argv) >= 7 and argv[1] == "run" and "--" in argv:
        sep = argv.index("--")
        opts, cmd = argv[6:sep], argv[sep + 1:]
        kw = {}
        i = 0
        while i < len(opts):
            if opts[i] == "--kill":
                kw["kill"] = True
            elif opts[i] == "--log":
                i += 1
                kw["log"] = opts[i]
            elif opts[i] == "--timeout":
                i += 1
                kw["timeout"] = float(opts[i])
            else:
                sys.exit("e2e-sched: unknown option %s" % opts[i])
            i += 1
        return cmd_run(argv[2], int(argv[3]), argv[4], argv[5], cmd, **kw)
    elif len(argv) == 3 and argv[1] == "table":
        cmd_table(argv[2])
    elif len(argv) == 5 and argv[1] == "csv":
        cmd_csv(argv[2], argv[3], argv[4])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
