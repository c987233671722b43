#!/usr/bin/python3
"""Circuits' failover under a steady stream (issue 50's bench), against
ofcd already running: Mininet's ring (tests/integration/mininet_ring.py,
started here as a child, answering line by line), s1 - s2 - s3 - s1.

For each N in COUNTS: N EVCs between s1:5 and s3:2 (VLAN 300 + i on both
UNIs; VLAN 300's hosts d1 and d3 carry the stream, its EVC made last, so
moved last), created 20 at a time,
their flows confirmed; then a UDP stream from d1 to d3, 10,000 packets/s
for 4 s (udp_stream.py), the s1 - s3 link (their path) set down 1 s into
it:
  - lost: packets that did not arrive, and the outage (the longest run of
    them, at 10 per ms);
  - moved_ms: from the cut until the last of the N EVCs was laid again
    through s2 (evc.redeployed on the event stream);
then the link set up again:
  - back_ms: with fast-failover on, until the last was laid over it
    again, protected again (a backup through s2: failover_path); off,
    they stay on their working path, as Kytos leaves a dynamic EVC;
then all deleted.

Prints one JSON object per N. Never asserts.

usage: eline_failover.py URL WORK_DIR COUNT...
"""
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

from rest_call import call

HERE = os.path.dirname(os.path.abspath(__file__))
RING = os.path.join(HERE, "..", "integration", "mininet_ring.py")
S1, S3 = "00:00:00:00:00:00:00:01", "00:00:00:00:00:00:00:03"
RATE = 10000                            # packets/s of the stream


class Ring:
    def __init__(self, work):
        self.p = subprocess.Popen(["/usr/bin/python3", RING, "10.66.0.2:6653", work],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(work, "mininet.err"), "w"),
                                  text=True)
        line = self.p.stdout.readline().strip()
        if line != "ready":
            raise SystemExit("Mininet did not build the ring: " + line)

    def do(self, *words):
        self.p.stdin.write(" ".join(str(w) for w in words) + "\n")
        self.p.stdin.flush()
        a = self.p.stdout.readline().strip()
        if not a.startswith("ok"):
            raise SystemExit("Mininet: %s: %s" % (words, a))
        return a[3:]

    def quit(self):
        self.do("quit")
        self.p.wait(60)


class Moves(threading.Thread):
    """evc.redeployed events: the time each EVC id was last laid again."""

    def __init__(self, url):
        super().__init__(daemon=True)
        u = urllib.parse.urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
        self.conn.request("GET", "/api/v1/events?kinds=evc.redeployed")
        self.resp = self.conn.getresponse()
        self.seen, self.cv = {}, threading.Condition()

    def run(self):
        while True:
            line = self.resp.fp.readline()
            if not line:
                return
            line = line.decode().rstrip("\n")
            if line.startswith("data: "):
                d = json.loads(line[6:])
                with self.cv:
                    self.seen[d["id"]] = time.time()
                    self.cv.notify_all()

    def wait_all(self, ids, after, timeout):
        """The time the last of ids was laid again after `after`; None."""
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                ts = [self.seen.get(i, 0) for i in ids]
                if all(t >= after for t in ts):
                    return max(ts)
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)


def installed(url):
    _, flows = call("GET", url + "/api/kytos/flow_manager/v2/stored_flows")
    return sum(1 for per in flows.values() for f in per
               if f["flow"].get("owner") == "mef_eline" and f["state"] == "installed")


def make(url, n):
    el = url + "/api/kytos/mef_eline/v2/evc/"
    ids, lock = [], threading.Lock()

    def one(i):
        body = {"name": "ff%d" % i, "enabled": True, "dynamic_backup_path": True,
                "uni_a": {"interface_id": S1 + ":5", "tag": {"tag_type": "vlan", "value": 300 + i}},
                "uni_z": {"interface_id": S3 + ":2", "tag": {"tag_type": "vlan", "value": 300 + i}}}
        st, a = call("POST", el, body)
        if st != 201:
            raise SystemExit("POST EVC %d: %s %s" % (i, st, a))
        with lock:
            ids.append(a["circuit_id"])

    # VLAN 300's EVC (the stream's) made last: the controller moves EVCs in
    # the order they were made, so the stream sees the longest wait.
    order = list(range(1, n)) + [0]
    for base in range(0, n, 20):
        ts = [threading.Thread(target=one, args=(i,)) for i in order[base:base + 20]]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return ids


def shapes(url):
    _, evcs = call("GET", url + "/api/kytos/mef_eline/v2/evc/")
    return {k: (v["active"], len(v["current_path"]), len(v["failover_path"]))
            for k, v in evcs.items()}


def until(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False


def round_of(url, work, ring, moves, n):
    ids = make(url, n)
    # Each EVC: two push and two pop flows, and the path's and backup's NNI
    # flows: at least 4 each, confirmed.
    until(lambda: installed(url) >= 4 * n, 120)
    sh = shapes(url)
    protected = sum(1 for i in ids if sh[i][2] > 0)
    if ring.do("ping", "d1", "10.72.0.3", 3) == "0":
        raise SystemExit("d1 cannot ping d3 over VLAN 300's EVC")
    stream = os.path.join(HERE, "udp_stream.py")
    rj = ring.do("bg", "d3", "/usr/bin/python3", stream, "recv", 9000, 4.5)
    sj = ring.do("bg", "d1", "/usr/bin/python3", stream, "send", "10.72.0.3", 9000, RATE, 4)
    time.sleep(1)                       # the stream steady before the cut
    cut = time.time()
    ring.do("link", "s1", "s3", "down")
    last = moves.wait_all(ids, cut, 300)
    ring.do("wait", "d1", sj)
    ring.do("wait", "d3", rj)
    sent = json.load(open(os.path.join(work, "d1.bg")))["sent"]
    r = json.load(open(os.path.join(work, "d3.bg")))
    time.sleep(0.5)
    up = time.time()
    ring.do("link", "s1", "s3", "up")
    back = None
    if protected:
        # Unprotected ones stay on their working path (as Kytos leaves a
        # dynamic EVC); protected ones come back for a backup again.
        back = moves.wait_all(ids, up, 300)
        until(lambda: all(v == (True, 1, 2) for v in shapes(url).values()), 60)
    for i in ids:
        call("DELETE", url + "/api/kytos/mef_eline/v2/evc/" + i)
    until(lambda: installed(url) == 0, 120)
    # A stream that had not come back when it ended: its tail is an outage
    # too (at least that long; it did not end within the stream).
    tail = max(0, sent - 1 - r["last_seq"])
    return {"evcs": n, "protected": protected, "sent": sent, "lost": sent - r["received"],
            "outage_ms": round(max(r["longest_gap"], tail) * 1000.0 / RATE, 1),
            "back_in_stream": tail == 0,
            "moved_ms": round((last - cut) * 1000) if last else None,
            "back_ms": round((back - up) * 1000) if back else None}


def main():
    url, work, counts = sys.argv[1].rstrip("/"), sys.argv[2], [int(c) for c in sys.argv[3:]]
    ring = Ring(work)
    try:
        def links_up():
            _, t = call("GET", url + "/api/kytos/topology/v3/links")
            return sum(1 for l in t["links"].values() if l["status"] == "UP") == 3
        if not until(links_up, 60):
            raise SystemExit("the ring's links were not found")
        moves = Moves(url)
        moves.start()
        for n in counts:
            print(json.dumps(round_of(url, work, ring, moves, n)), flush=True)
    finally:
        ring.quit()


if __name__ == "__main__":
    main()
