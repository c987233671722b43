#!/usr/bin/env python3
"""POST flows round-robin to a cluster's nodes, one flow per request.

usage: cluster_post.py PORTS COUNT BRIDGES PRIORITY [FIRST]
       FLOWS_PER_POST=K cluster_post.py ...   (K flows of one bridge a request)

PORTS: the nodes' REST ports, comma-separated. Flow i (FIRST .. FIRST +
COUNT - 1) goes to node i % len(PORTS), on bridge (i % BRIDGES) + 1 (its
datapath id 0x1000 + bridge, as ovs_add_bridges makes them), with the given
priority and a match of its own (nw_dst 10.77.x.y). Each node gets
CONNS_PER_NODE (4, or that environment variable) keep-alive connections,
all posting at once (a lab's
clients: the node's group commit batches what arrives together). Prints one line per
answer code ("202 1998"), then the time they took and the answers' latency
("in 2.31 s, 866 POSTs/s, 866 flows/s, p50 11.2 ms p99 35.0 ms"), and exits
1 unless every answer was 202. With FLOWS_PER_POST, COUNT is the number of
flows, FLOWS_PER_POST of them (consecutive, on one bridge) a request.
"""
import http.client
import json
import os
import sys
import threading
import time
from collections import Counter

CONNS_PER_NODE = int(os.environ.get("CONNS_PER_NODE", "4"))


def flow_path(bridge):
    dpid = "%016x" % (0x1000 + bridge)
    return "/api/kytos/flow_manager/v2/flows/" + ":".join(
        dpid[k:k + 2] for k in range(0, 16, 2))


def one_flow(i, priority):
    return {"priority": priority,
            "match": {"dl_type": 2048, "nw_dst": "10.77.%d.%d" % (i // 250, i % 250)}}


def post_all(port, items, priority, codes, errors, lock, lat):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for first, n, bridge in items:
        body = json.dumps({"flows": [one_flow(i, priority) for i in range(first, first + n)]})
        i = first
        try:
            t0 = time.monotonic()
            conn.request("POST", flow_path(bridge), body,
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            text = r.read()
            code = r.status
            with lock:
                lat.append(time.monotonic() - t0)
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            code, text = "error", str(e).encode()
        with lock:
            codes[code] += 1
            if code != 202 and len(errors) < 5:
                errors.append("node port %d, flow %d: %s %s" % (port, i, code, text[:200]))
    conn.close()


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    ports = [int(p) for p in sys.argv[1].split(",")]
    count, bridges, priority = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    first = int(sys.argv[5]) if len(sys.argv) == 6 else 0
    per = int(os.environ.get("FLOWS_PER_POST", "1"))
    share = {(p, c): [] for p in ports for c in range(CONNS_PER_NODE)}
    posts = 0
    for r, i in enumerate(range(first, first + count, per)):
        n = min(per, first + count - i)
        share[(ports[r % len(ports)], r // len(ports) % CONNS_PER_NODE)].append(
            (i, n, r % bridges + 1 if per > 1 else i % bridges + 1))
        posts += 1
    codes, errors, lock, lat = Counter(), [], threading.Lock(), []
    threads = [threading.Thread(target=post_all, args=(p, share[(p, c)], priority, codes, errors,
                                                      lock, lat))
               for (p, c) in share]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    for code, n in sorted(codes.items(), key=str):
        print(code, n)
    lat.sort()

    def pct(p):
        return 1000 * lat[min(len(lat) - 1, int((len(lat) - 1) * p / 100 + 0.5))] if lat else 0
    print("in %.2f s, %.0f POSTs/s, %.0f flows/s, p50 %.1f ms p99 %.1f ms" % (
        took, posts / took if took > 0 else 0, count / took if took > 0 else 0, pct(50), pct(99)))
    for e in errors:
        print(e, file=sys.stderr)
    sys.exit(0 if codes[202] == posts else 1)


if __name__ == "__main__":
    main()
