#!/usr/bin/python3
"""Pathfinder's answer time: ofcd's POST /api/kytos/pathfinder/v3/ next to
Kytos-ng's engine (networkx shortest_simple_paths, as its pathfinder calls
it) on the same graph, read from ofcd's topology v3.

usage: pathfinder_peer.py URL [ROUNDS]

The pair asked is the two switches farthest apart (by hops from the
first switch, then from there): the longest search the topology holds.
ofcd's time is the whole request as a client sees it (HTTP, the topology
copied, the graph made, the search, the JSON); networkx's is the search
alone on a graph built once, which is what Kytos' pathfinder keeps between
requests. Each figure is the median of ROUNDS (default 20). Prints one line
per k and checks both agree on the first path's cost (a line saying so
when they do not). Never asserts.
"""
import itertools
import json
import statistics
import sys
import time
import urllib.request

import networkx as nx

url = sys.argv[1].rstrip("/")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20


def get(path):
    with urllib.request.urlopen(url + path, timeout=60) as r:
        return json.load(r)


def post(path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


topo = get("/api/kytos/topology/v3/")["topology"]
g = nx.Graph()
for sid, s in topo["switches"].items():
    if s.get("status") != "UP":
        continue
    g.add_node(sid)
    for iid, i in s.get("interfaces", {}).items():
        if i.get("status") == "UP":
            g.add_edge(sid, iid)
for lid, l in topo["links"].items():
    if l.get("status") == "UP":
        g.add_edge(l["endpoint_a"]["id"], l["endpoint_b"]["id"])
switches = [n for n in g.nodes if n.count(":") == 7]
if len(switches) < 2:
    print("pathfinder: fewer than two switches up; nothing measured")
    sys.exit(0)
far = lambda s: max(nx.single_source_shortest_path_length(g, s).items(),
                    key=lambda kv: (kv[0].count(":") == 7, kv[1]))[0]
src = far(switches[0])
dst = far(src)
print(f"pathfinder: {len(switches)} switches, {g.number_of_nodes()} nodes, "
      f"{g.number_of_edges()} edges; {src} -> {dst}")
for k in (2, 10):
    body = {"source": src, "destination": dst, "spf_max_paths": k}
    ofcd_ms, nx_ms, answer = [], [], None
    for _ in range(rounds):
        t = time.perf_counter()
        answer = post("/api/kytos/pathfinder/v3/", body)
        ofcd_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        paths = list(itertools.islice(nx.shortest_simple_paths(g, src, dst), k))
        nx_ms.append((time.perf_counter() - t) * 1000)
    ofcd_cost = answer["paths"][0]["cost"] if answer["paths"] else None
    nx_cost = len(paths[0]) - 1 if paths else None
    print(f"pathfinder k={k:<2} ms (median of {rounds}): ofcd {statistics.median(ofcd_ms):8.1f}"
          f"  networkx {statistics.median(nx_ms):8.1f}   paths {len(answer['paths'])}/{len(paths)},"
          f" first cost {ofcd_cost}/{nx_cost}")
    if ofcd_cost != nx_cost:
        print(f"pathfinder k={k}: the first paths' costs differ: ofcd {ofcd_cost}, networkx {nx_cost}")
