#!/usr/bin/env python3
"""Prints a free TCP port on 127.0.0.1 below the kernel's ephemeral range.

A port from the ephemeral range (ip_local_port_range), free when picked, can become the
source port of any outgoing connection (another plane's API server talking to its etcd) in
the second or so before the daemon binds it, which then exits with "address already in use"
(seen with three planes starting at once). Below the range only an explicit bind can take
it; the port is picked at random so that callers starting together rarely try the same one.
"""
import random
import socket

lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    port = random.randrange(max(1024, lo - 12000), lo)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("free-port: no free port below the ephemeral range")
