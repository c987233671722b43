#!/usr/bin/env python3
"""Link-down detection against Open vSwitch: for each link of a ring of
bridges (br_i port 1 - br_{i+1} port 2, patch ports), pull the cable —
delete br_i's patch port (ovs-vsctl del-port; OVS sends PORT_STATUS
delete, and link down on the peer) — and time until the controller
reports that link down; put the port back and time until it is up again.
(OVS ignores ovs-ofctl mod-port down on patch ports.) The clock starts
just before ovs-vsctl runs: its start-up and OVS's reconfiguration, some
ms, are in every figure alike.

ofcd reports through its event stream (GET /api/v1/events, link.down and
link.up, read as they arrive); os-ken through osken/osken_links.py's
$OSKEN_EVENTS_FILE (EventLinkDelete/Add with the time os-ken handled them).

Prints one JSON object: {"down_ms": [...], "up_ms": [...], "missed": n};
with LINKDOWN_TRACE set, each sample's times on stderr too.

usage: linkdown.py ofcd URL OVSDB_SOCKET N
       linkdown.py osken EVENTS_FILE OVSDB_SOCKET N
"""
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

DPID0 = 0x1000


def dpid_id(d):
    h = f"{d:016x}"
    return ":".join(h[i:i + 2] for i in range(0, 16, 2))


class OfcdEvents(threading.Thread):
    """(kind, frozenset of the two "dpid:port" ends, arrival time)."""

    def __init__(self, url):
        super().__init__(daemon=True)
        u = urllib.parse.urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        self.conn.request("GET", "/api/v1/events?kinds=link.down,link.up")
        self.resp = self.conn.getresponse()
        self.events, self.cv = [], threading.Condition()

    def run(self):
        kind = None
        while True:
            line = self.resp.fp.readline()
            if not line:
                return
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                d = json.loads(line[6:])
                with self.cv:
                    self.events.append((kind, frozenset((d["a"], d["b"])), time.time()))
                    self.cv.notify_all()

    def wait(self, kind, ends, after, timeout):
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                for k, e, t in self.events:
                    if k == kind and e == ends and t >= after:
                        return t
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)


class OskenEvents:
    """os-ken's links are one direction each: a link is down when either
    direction is deleted, up when both are added."""

    def __init__(self, path):
        self.path = path

    def _lines(self):
        try:
            with open(self.path) as f:
                return [l.split() for l in f if l.strip()]
        except FileNotFoundError:
            return []

    def wait(self, kind, ends, after, timeout):
        want = "del" if kind == "link.down" else "add"
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            seen = {}
            for w, sd, sp, dd, dp, t in self._lines():
                t = float(t)
                src = f"{dpid_id(int(sd))}:{sp}"
                dst = f"{dpid_id(int(dd))}:{dp}"
                if w == want and t >= after and frozenset((src, dst)) == ends:
                    seen.setdefault(src, t)
            if want == "del" and seen:
                return min(seen.values())
            if want == "add" and len(seen) == 2:
                return max(seen.values())
            time.sleep(0.002)
        return None


def main():
    mode, src, db, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if mode == "ofcd":
        ev = OfcdEvents(src)
        ev.start()
    else:
        ev = OskenEvents(src)
    vsctl = ["ovs-vsctl", f"--db=unix:{db}", "--timeout=30"]
    res = {"down_ms": [], "up_ms": [], "missed": 0}
    for i in range(1, n + 1):
        j = i % n + 1
        ends = frozenset((f"{dpid_id(DPID0 + i)}:1", f"{dpid_id(DPID0 + j)}:2"))
        t0 = time.time()
        subprocess.run(vsctl + ["del-port", f"br{i}", f"p{i}-{j}"], check=True)
        t = ev.wait("link.down", ends, t0, 10)
        if os.environ.get("LINKDOWN_TRACE"):
            print(f"trace br{i} t0={t0:.6f} down={t}", file=sys.stderr)
        if t is None:
            res["missed"] += 1
        else:
            res["down_ms"].append((t - t0) * 1000)
        t0 = time.time()
        subprocess.run(vsctl + ["add-port", f"br{i}", f"p{i}-{j}", "--", "set", "interface",
                                f"p{i}-{j}", "type=patch", f"options:peer=p{j}-{i}",
                                "ofport_request=1"], check=True)
        t = ev.wait("link.up", ends, t0, 15)
        if t is None:
            res["missed"] += 1
        else:
            res["up_ms"].append((t - t0) * 1000)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
