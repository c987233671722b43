#!/usr/bin/env bash
# A node's copies of the cluster through real etcd (a three-member etcd on
# loopback, two ofcd nodes, one Open vSwitch bridge connected to both):
#   - 70,000 keys under the cluster's view (the events key space) before the
#     nodes start: each node reads the cluster's keys page by page and acts
#     (caught up, masters the bridge); one range of them all is past the
#     client's decoder, and a node that asked so never acted;
#   - node 2 stopped while 3,000 one-flow POSTs and 300 deletes go through
#     node 1; started again and killed -9 while it catches up, then started
#     again: it stores exactly node 1's flows, none of the deleted back.
#
# usage: cluster_catchup.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/cluster_ovs.sh"
. "$here/../../scripts/cluster-lib.sh"
require_root
require_tool etcd "etcd (etcd-server)"
require_tool jq

PREFIX=/ofcd/v1/
N=3000
D=300
it_setup cluster-catchup
it_on_exit cl_all_stop
it_on_exit ovs_stop

cl_etcd_start "$work" || fail "the three-member etcd did not start"

# 70,000 keys in the events key space of a node that never runs, 128 a
# transaction (etcd's default bound), through etcd's JSON gateway.
python3 - "${CL_ETCD_ENDPOINTS%%,*}" "${PREFIX}events/" 70000 <<'PY' ||
import base64, json, sys, urllib.request
url, pfx, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = lambda s: base64.b64encode(s.encode()).decode()
for first in range(0, n, 128):
    ops = [{"requestPut": {"key": b("%sghost-%06d" % (pfx, i)), "value": b("[]")}}
           for i in range(first, min(n, first + 128))]
    req = urllib.request.Request(url + "/v3/kv/txn", json.dumps({"success": ops}).encode(),
                                 {"Content-Type": "application/json"})
    json.load(urllib.request.urlopen(req, timeout=30))
PY
    fail "cannot put the 70,000 keys"
pass "70,000 keys under ${PREFIX}events/"

for k in 1 2; do
    cl_node_start $k "$work" || fail "node $k did not start"
done
# Node K says it has caught up with the cluster's keys.
caught_up() {
    cl_node_rest "$1" /api/v1/cluster | jq -e '.caught_up == true' >/dev/null
}
for k in 1 2; do
    wait_until 20 caught_up $k ||
        fail "node $k never caught up with the cluster's keys: $(cl_node_rest $k /api/v1/cluster)"
done
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 1 "$(cl_controllers 2)" 1000 || fail "cannot create the bridge"
wait_until 30 one_master_each 1 || fail "the bridge has no master: $(bridge_masters)"
pass "both nodes read the 70,000 keys page by page, caught up, and br1 has a master"

# ---- node 2 misses 3,000 adds and 300 deletes ----------------------------
cl_node_stop 2 || fail "node 2 did not stop"
posted=$(python3 "$here/cluster_post.py" 8181 $N 1 3000 | tr '\n' ' ') ||
    fail "3,000 POSTs through node 1: $posted"
python3 - $D <<'PY' || fail "the deletes through node 1 failed"
import http.client, json, sys
conn = http.client.HTTPConnection("127.0.0.1", 8181, timeout=30)
path = "/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:01"
for i in range(0, int(sys.argv[1]) * 10, 10):
    body = {"flows": [{"priority": 3000, "match": {"dl_type": 2048,
                                                   "nw_dst": "10.77.%d.%d" % (i // 250, i % 250)}}]}
    conn.request("DELETE", path, json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    text = r.read()
    if r.status != 202:
        sys.exit("DELETE of flow %d: %d %s" % (i, r.status, text[:200]))
PY
# The priority-3000 flows node K stores as not deleted, one "nw_dst" a line, sorted.
stored() {
    cl_node_rest "$1" "/api/kytos/flow_manager/v2/stored_flows?dpid=00:00:00:00:00:00:10:01" |
        jq -r '.[][] | select(.flow.priority == 3000 and .state != "deleted") | .flow.match.nw_dst' |
        sort
}
stored 1 >"$work/node1.flows"
[ "$(wc -l <"$work/node1.flows")" = $((N - D)) ] ||
    fail "node 1 stores $(wc -l <"$work/node1.flows") flows, not $((N - D))"
pass "node 2 stopped; through node 1: $posted; $D deleted"

# ---- killed -9 while it catches up, then again ----------------------------
mv "$work/node2.log" "$work/node2.first.log"
cl_node_start 2 "$work" 2>/dev/null &
starter=$!
wait_for_line "$work/node2.log" "catching up with etcd from revision" 60 ||
    fail "node 2 did not start to catch up: $(tail -5 "$work/node2.log")"
pid=$(cat "$work/node2.pid")
kill -9 "$pid"
wait "$starter" 2>/dev/null
cl_wait_gone "$pid" 10 || fail "node 2 alive after kill -9"
rm -f "$work/node2.pid"
mv "$work/node2.log" "$work/node2.killed.log"
cl_node_start 2 "$work" || fail "node 2 did not start after kill -9"
# Ready means its copy caught up: what it stores now is etcd's.
grep -q "not caught up with etcd" "$work/node2.log" && fail "node 2 said ready before it caught up"
stored 2 >"$work/node2.flows"
cmp -s "$work/node1.flows" "$work/node2.flows" ||
    fail "node 2 stores $(wc -l <"$work/node2.flows") flows, node 1 $((N - D)):" \
         "$(diff "$work/node1.flows" "$work/node2.flows" | head -5)"
pass "node 2 killed -9 while catching up and started again: it stores node 1's $((N - D))" \
     "flows, none of the $D deleted"
