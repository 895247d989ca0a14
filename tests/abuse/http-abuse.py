#!/usr/bin/env python3
"""Hostile HTTP clients for the abuse suite (tests/e2e/70-abuse-http.sh), loopback only.

Every mode is bounded in count and time and prints one summary line of key=value pairs.
Abusers connect from 127.0.0.2 .. 127.0.0.(1+SOURCES) (--sources), so that the prober,
from 127.0.0.1, is another client as the kubelet is another client than a hostile pod.

  probe   --target H:P[,H:P..] --seconds S [--interval 0.2]
          GET /healthz on each target (https:// prefix for TLS) every interval; one line per
          probe on stdout: "TIME TARGET STATUS SECONDS" (STATUS 0: no answer in 2 s)
  hold    --target H:P --count N --seconds S      N connections opened, held S s, closed
  slowloris --target H:P --count N --interval I --seconds S
          N clients sending one request header byte every I s; reports how many the server
          closed and the longest any stayed open
  tokens  --target H:P --count N --connections C  N GET /metrics with random bearer tokens
          over C kept-alive TLS connections (a thread each); reports the statuses seen
  oversized --target H:P [--tls]                  one request with 64 KiB of headers, one
          with a 1 MiB body; reports each status (0: the connection was closed)
  pods    --target API_HOST:PORT --pki DIR --namespace NS --scheduler NAME --rate R --seconds S
          a steady stream of pods (R a second, admin client certificate of DIR) for the
          scheduler NAME; one line "TIME CREATED" a second on stdout
"""
import argparse
import os
import resource
import secrets
import selectors
import socket
import ssl
import sys
import threading
import time


def sources(n):
    return ["127.0.0.%d" % (2 + i % n) for i in range(max(n, 1))]


def parse_target(t):
    tls = t.startswith("https://")
    if "://" in t:
        t = t.split("://", 1)[1]
    host, port = t.rsplit(":", 1)
    return host, int(port), tls


def tls_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def connect(host, port, source=None, timeout=2.0, tls=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if source:
        s.bind((source, 0))
    s.connect((host, port))
    if tls:
        s = tls_context().wrap_socket(s)
    return s


def read_status(s):
    """The status of one HTTP/1.1 response on s, reading exactly its headers and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return 0, data
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, rest[length:]


def probe(args):
    targets = [parse_target(t) for t in args.target.split(",")]
    names = args.target.split(",")
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        for (host, port, tls), name in zip(targets, names):
            t0 = time.monotonic()
            status = 0
            try:
                s = connect(host, port, "127.0.0.1", timeout=2.0, tls=tls)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                status, _ = read_status(s)
                s.close()
            except (OSError, ValueError, IndexError):
                status = 0
            print("%.3f %s %d %.3f" % (time.time(), name, status, time.monotonic() - t0), flush=True)
        time.sleep(args.interval)


def hold(args):
    host, port, tls = parse_target(args.target)
    srcs = sources(args.sources)
    socks = []
    failed = 0
    for i in range(args.count):
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((srcs[i % len(srcs)], 0))
            try:
                s.connect((host, port))
            except BlockingIOError:
                pass
            socks.append(s)
        except OSError:
            failed += 1
    time.sleep(args.seconds)
    closed_by_server = 0
    for s in socks:
        try:
            if s.recv(1) == b"":
                closed_by_server += 1
        except BlockingIOError:
            pass
        except OSError:
            closed_by_server += 1
        s.close()
    print("opened=%d failed=%d closed_by_server=%d" % (len(socks), failed, closed_by_server))


def slowloris(args):
    host, port, tls = parse_target(args.target)
    srcs = sources(args.sources)
    request = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 64
    sel = selectors.DefaultSelector()
    state = {}
    start = time.monotonic()
    for i in range(args.count):
        try:
            s = connect(host, port, srcs[i % len(srcs)], timeout=2.0)
            s.setblocking(False)
            state[s] = {"sent": 0, "opened": time.monotonic(), "closed": None}
            sel.register(s, selectors.EVENT_READ)
        except OSError:
            pass
    next_send = start
    end = start + args.seconds
    while time.monotonic() < end and any(v["closed"] is None for v in state.values()):
        now = time.monotonic()
        if now >= next_send:
            for s, v in state.items():
                if v["closed"] is None:
                    try:
                        s.send(request[v["sent"]:v["sent"] + 1])
                        v["sent"] += 1
                    except OSError:
                        v["closed"] = now
            next_send = now + args.interval
        for key, _ in sel.select(timeout=max(0.0, min(next_send, end) - time.monotonic())):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data == b"" and state[s]["closed"] is None:
                state[s]["closed"] = time.monotonic()
                sel.unregister(s)
    closed = [v["closed"] - v["opened"] for v in state.values() if v["closed"] is not None]
    still = sum(1 for v in state.values() if v["closed"] is None)
    for s in state:
        s.close()
    print("opened=%d closed_by_server=%d still_open=%d longest_open=%.1f" %
          (len(state), len(closed), still, max(closed) if closed else args.seconds))


def tokens(args):
    """One thread per connection, each from its own source address, so that the clients
    are as fast as the server answers (a review in progress holds only its connection)."""
    host, port, tls = parse_target(args.target)
    srcs = sources(args.sources)
    statuses = {}
    lock = threading.Lock()
    sent = [0]
    t0 = time.monotonic()
    end = t0 + args.seconds

    def worker(i):
        conn = None
        while True:
            left = end - time.monotonic()
            with lock:
                if sent[0] >= args.count or left <= 0:
                    break
                sent[0] += 1
            try:
                if conn is None:
                    conn = connect(host, port, srcs[i % len(srcs)], timeout=min(5.0, left), tls=True)
                conn.settimeout(min(5.0, left))
                token = secrets.token_urlsafe(32)
                conn.sendall(("GET /metrics HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\n\r\n"
                              % token).encode())
                status, _ = read_status(conn)
            except (OSError, ValueError, IndexError):
                status = 0
            if status == 0 and conn is not None:
                conn.close()
                conn = None
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
        if conn is not None:
            conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = sum(statuses.values())
    print("requests=%d seconds=%.1f %s" % (done, time.monotonic() - t0,
                                           " ".join("status_%d=%d" % kv for kv in sorted(statuses.items()))))


def oversized(args):
    host, port, tls = parse_target(args.target)
    out = []
    for request in (b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n",
                    b"POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n" +
                    b"b" * 1048576):
        status = 0
        try:
            s = connect(host, port, "127.0.0.2", timeout=5.0, tls=tls)
            try:
                s.sendall(request)
            except OSError:
                pass
            status, _ = read_status(s)
            s.close()
        except (OSError, ValueError, IndexError):
            pass
        out.append(status)
    print("headers_status=%d body_status=%d" % tuple(out))


def pods(args):
    host, port, _ = parse_target(args.target)
    ctx = ssl.create_default_context(cafile=os.path.join(args.pki, "ca.crt"))
    ctx.check_hostname = False
    ctx.load_cert_chain(os.path.join(args.pki, "admin.crt"), os.path.join(args.pki, "admin.key"))
    conn = None
    created = 0
    start = time.monotonic()
    n = 0
    last_report = start
    while time.monotonic() - start < args.seconds:
        due = start + n / args.rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        body = ('{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"stream-","labels":{"stream":"yes"}},'
                '"spec":{"schedulerName":"%s","containers":[{"name":"app","image":"abuse-app",'
                '"resources":{"requests":{"cpu":"1m","memory":"1Mi"}}}]}}' % args.scheduler).encode()
        n += 1
        try:
            if conn is None:
                raw = socket.create_connection((host, port), timeout=30)
                conn = ctx.wrap_socket(raw)
            conn.sendall(("POST /api/v1/namespaces/%s/pods HTTP/1.1\r\nHost: %s\r\n"
                          "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                          % (args.namespace, host, len(body))).encode() + body)
            status, _ = read_status(conn)
            if status == 201:
                created += 1
            elif status == 0:
                conn.close()
                conn = None
        except (OSError, ValueError, IndexError):
            if conn is not None:
                conn.close()
            conn = None
        if time.monotonic() - last_report >= 1:
            last_report = time.monotonic()
            print("%.3f %d" % (time.time(), created), flush=True)
    print("%.3f %d" % (time.time(), created), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["probe", "hold", "slowloris", "tokens", "oversized", "pods"])
    p.add_argument("--target", required=True)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--connections", type=int, default=8)
    p.add_argument("--sources", type=int, default=64)
    p.add_argument("--tls", action="store_true")
    p.add_argument("--pki")
    p.add_argument("--namespace")
    p.add_argument("--scheduler")
    p.add_argument("--rate", type=float, default=10)
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    {"probe": probe, "hold": hold, "slowloris": slowloris, "tokens": tokens, "oversized": oversized, "pods": pods}[args.mode](args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
