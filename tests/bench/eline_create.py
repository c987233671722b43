#!/usr/bin/python3
"""EVC creation as Kytos-ng's scalability scripts drive mef_eline: N EVCs
(default 500) POSTed by C clients at once (default 100), each between two
host ports of different switches (ports no link uses, read from ofcd's
topology v3), each with a VLAN of its own on both UNIs, enabled, on a
dynamic path.

usage: eline_create.py URL [N] [CONCURRENCY]

Prints one line: EVCs created and deployed, the wall time, the rate, the
answer time's p50/p99, how many got a backup (a fast-failover group at
each UNI), and the time until every EVC's flows were confirmed
by the switches' barrier replies (ofcd_flows{state="installed"} in
/metrics reaching what it was plus the new flows); then the time of
topology v3's listing of every interface's tag pools. Then deletes them all
(their flows leave the switches) and prints the deletion time. Never
asserts: a failed request is counted and its first answer shown.
"""
import statistics
import sys
import threading
import time
import urllib.request

from rest_call import call

url = sys.argv[1].rstrip("/")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 500
conc = int(sys.argv[3]) if len(sys.argv) > 3 else 100
EL = url + "/api/kytos/mef_eline/v2/evc/"


def installed():
    with urllib.request.urlopen(url + "/metrics", timeout=60) as r:
        for line in r.read().decode().splitlines():
            if line.startswith('ofcd_flows{state="installed"}'):
                return int(float(line.split()[1]))
    return 0


topo = call("GET", url + "/api/kytos/topology/v3/")[1]["topology"]
linked = set()
for l in topo["links"].values():
    linked.add(l["endpoint_a"]["id"])
    linked.add(l["endpoint_b"]["id"])
hosts = []
for sid, s in sorted(topo["switches"].items()):
    for iid, i in sorted(s.get("interfaces", {}).items()):
        port = int(iid.rsplit(":", 1)[1])
        if iid not in linked and port < 0xffffff00 and i.get("status") == "UP":
            hosts.append((sid, iid))
if len(hosts) < 2:
    print("eline: fewer than two host ports; nothing measured")
    sys.exit(0)

# EVC i: host port a = i (round r = i // len(hosts) on it: VLAN 100 + r),
# z = a port of another switch (VLAN 2100 + i): no (port, VLAN) twice.
bodies = []
for i in range(n):
    a = hosts[i % len(hosts)]
    k = (i * 7919 + len(hosts) // 2) % len(hosts)
    while hosts[k][0] == a[0]:
        k = (k + 1) % len(hosts)
    z = hosts[k]
    bodies.append({"name": f"bench-{i}", "enabled": True, "dynamic_backup_path": True,
                   "uni_a": {"interface_id": a[1],
                             "tag": {"tag_type": "vlan", "value": 100 + i // len(hosts)}},
                   "uni_z": {"interface_id": z[1],
                             "tag": {"tag_type": "vlan", "value": 2100 + i}}})

before = installed()
lat, ids, bad = [], [], []
lock = threading.Lock()
nxt = [0]


def worker():
    while True:
        with lock:
            i = nxt[0]
            nxt[0] += 1
        if i >= n:
            return
        t = time.monotonic()
        st, ans = call("POST", EL, bodies[i])
        dt = time.monotonic() - t
        with lock:
            lat.append(dt)
            if st == 201 and isinstance(ans, dict) and ans.get("deployed"):
                ids.append(ans["circuit_id"])
            else:
                bad.append((st, ans))


t0 = time.monotonic()
th = [threading.Thread(target=worker) for _ in range(conc)]
for x in th:
    x.start()
for x in th:
    x.join()
wall = time.monotonic() - t0
evcs = call("GET", EL)[1]
# Each EVC: 2 flows per switch inside its path and its backup, 2 per UNI
# (a push and a pop), and a pop per UNI for the backup: 2 (n + m) + 2.
mine = [e for e in evcs.values() if e["id"] in set(ids)]
flows = sum(2 * (len(e["current_path"]) + len(e["failover_path"])) + 2 for e in mine)
protected = sum(1 for e in mine if e["failover_path"])
deadline = time.monotonic() + 120
while installed() < before + flows and time.monotonic() < deadline:
    time.sleep(0.05)
confirmed = time.monotonic() - t0
q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0]] * 99
print(f"eline: {len(ids)} of {n} EVCs created and deployed by {conc} clients in {wall:.2f} s "
      f"({len(ids) / wall:.0f} EVCs/s), answer p50 {q[49] * 1000:.0f} ms p99 {q[98] * 1000:.0f} ms; "
      f"{protected} protected by a backup; their {flows} flows confirmed by barrier "
      f"{confirmed:.2f} s after the first POST"
      + ("" if installed() >= before + flows else " (NOT all confirmed after 120 s)"))
if bad:
    print(f"eline: {len(bad)} not created or not deployed; the first: {bad[0]}")

# Every interface's tag pools with those EVCs' tags taken out (topology
# v3's listing), while they live: the median of 5.
took = []
for _ in range(5):
    t1 = time.monotonic()
    with urllib.request.urlopen(url + "/api/kytos/topology/v3/interfaces/tag_ranges",
                                timeout=120) as r:
        r.read()                        # the answer's bytes, not a parse of them
    took.append(time.monotonic() - t1)
print(f"eline: GET interfaces/tag_ranges with the {len(ids)} EVCs: "
      f"{statistics.median(took) * 1000:.1f} ms (median of 5)")

t0 = time.monotonic()
nxt[0] = 0
gone = []


def deleter():
    while True:
        with lock:
            i = nxt[0]
            nxt[0] += 1
        if i >= len(ids):
            return
        st, _ = call("DELETE", EL + ids[i])
        with lock:
            gone.append(st == 200)


th = [threading.Thread(target=deleter) for _ in range(conc)]
for x in th:
    x.start()
for x in th:
    x.join()
print(f"eline: {sum(gone)} of {len(ids)} EVCs deleted in {time.monotonic() - t0:.2f} s")
