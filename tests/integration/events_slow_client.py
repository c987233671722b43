#!/usr/bin/env python3
"""A client of GET /api/v1/events that never reads, next to one that does.

Opens the stalled stream first (small receive buffer, small MSS, so the
kernel holds little of what ofcd sends), then a reading stream, then posts
distinct one-flow requests to the flow manager until ofcd reports the
stalled client cut off (ofcd_rest_events_total{what="clients_cut"}) or
--max-posts is reached. Checks, and exits non-zero with the reason if not:
  - the stalled client was cut off, the reading one was not (clients_cut 1);
  - the reading stream heard flow.installed for every flow posted (the sum
    of their counts), while the other was stuck;
  - the stalled socket, read at last, ends (EOF or reset): ofcd let it go.
Prints one line of figures.

usage: events_slow_client.py BASE_URL DPID[,DPID...] [--max-posts N]
"""
import argparse
import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse


def metric(host, port, name):
    c = http.client.HTTPConnection(host, port, timeout=5)
    c.request("GET", "/metrics")
    body = c.getresponse().read().decode()
    c.close()
    for line in body.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return int(float(parts[1]))
    return 0


def stalled_stream(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    s.connect((host, port))
    s.sendall(b"GET /api/v1/events?kinds=flow HTTP/1.1\r\nHost: x\r\n\r\n")
    return s


class Reader(threading.Thread):
    """Reads the stream as a browser's EventSource would, summing counts."""

    def __init__(self, host, port):
        super().__init__(daemon=True)
        self.installed = 0
        self.lock = threading.Lock()
        self.error = None
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.conn.request("GET", "/api/v1/events?kinds=flow.installed")
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise SystemExit(f"reading stream: HTTP {self.resp.status}")

    def run(self):
        kind = None
        try:
            while True:
                line = self.resp.fp.readline()
                if not line:
                    self.error = "the reading stream ended"
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "flow.installed":
                    with self.lock:
                        self.installed += json.loads(line[6:])["count"]
        except Exception as e:  # noqa: BLE001 - reported as the failure
            self.error = f"reading stream: {e!r}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("dpids")
    ap.add_argument("--max-posts", type=int, default=20000)
    a = ap.parse_args()
    u = urllib.parse.urlparse(a.base)
    host, port = u.hostname, u.port or 80
    dpids = a.dpids.split(",")
    cut_name = 'ofcd_rest_events_total{what="clients_cut"}'
    cut0 = metric(host, port, cut_name)

    stalled = stalled_stream(host, port)
    reader = Reader(host, port)
    reader.start()

    post = http.client.HTTPConnection(host, port, timeout=10)
    posted, t0, cut = 0, time.monotonic(), False
    while posted < a.max_posts:
        dpid = dpids[posted % len(dpids)]
        n = posted // len(dpids)
        body = json.dumps({"flows": [{"priority": 20, "match": {
            "dl_type": 2048, "nw_dst": f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"},
            "actions": [{"action_type": "output", "port": 1}]}]})
        post.request("POST", f"/api/kytos/flow_manager/v2/flows/{dpid}", body,
                     {"Content-Type": "application/json"})
        r = post.getresponse()
        r.read()
        if r.status != 202:
            raise SystemExit(f"POST {posted + 1}: HTTP {r.status}")
        posted += 1
        if posted % 250 == 0 and metric(host, port, cut_name) > cut0:
            cut = True
            break
    post_s = time.monotonic() - t0
    if not cut:
        raise SystemExit(f"{posted} flows posted, the stalled client still not cut off")

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and reader.installed < posted and not reader.error:
        time.sleep(0.05)
    if reader.error:
        raise SystemExit(reader.error)
    if reader.installed != posted:
        raise SystemExit(f"the reading stream heard {reader.installed} of {posted} flows installed")
    cuts = metric(host, port, cut_name) - cut0
    if cuts != 1:
        raise SystemExit(f"{cuts} clients cut off, expected only the stalled one")

    # The stalled socket at last reads: what the kernel held, then the end.
    stalled.settimeout(10)
    got, ended = 0, False
    try:
        while True:
            b = stalled.recv(65536)
            if not b:
                ended = True
                break
            got += len(b)
    except ConnectionResetError:
        ended = True
    except socket.timeout:
        pass
    if not ended:
        raise SystemExit(f"the stalled stream was not closed ({got} bytes read, no end)")
    print(f"events_slow_client: posted={posted} in {post_s:.1f}s, reader heard all "
          f"{reader.installed}, stalled client cut off (it had {got} bytes buffered)")


if __name__ == "__main__":
    main()
