#!/usr/bin/env bash
# A node's copies of the cluster through real etcd (a three-member etcd on
# loopback, two ofcd nodes, one Open vSwitch bridge connected to both):
#   - 70,000 keys under the cluster's view (the events key space) before the
#     nodes start: each node reads the cluster's keys page by page and acts
#     (caught up, masters the bridge); one range of them all is past the
#     client's decoder, and a node that asked so never acted;
#   - node 2 stopped while 3,000 one-flow POSTs, 300 deletes and 20,000
#     flows of a switch gone (stored, not sent) go through node 1; started
#     again and killed -9 as it starts to catch up, then started
#     again: it stores exactly node 1's flows, none of the deleted back;
#   - etcd's leader killed -9 once the first part of a 1,000-flow request is
#     in etcd: the answer is 202 with all of them there, or 504 "the outcome
#     is not known"; any other answer with none of them there.
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
require_tool etcdctl "etcdctl (etcd-client)"
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
    cl_node_start $k "$work" --apps.topology=false || fail "node $k did not start"
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
ovs_add_bridges 2 "$(cl_controllers 2)" 1000 || fail "cannot create the bridges"
wait_until 30 one_master_each 2 || fail "a bridge has no master: $(bridge_masters)"
# br2 known to the nodes, then gone: its flows are stored ("force") and
# not sent, so the catch-up below is long without Open vSwitch's work.
ovs_vsctl del-br br2 || fail "cannot delete br2"
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
# 20,000 flows for br2, 200 a request.
python3 - <<'PY' || fail "the flows for br2 through node 1 failed"
import http.client, json, sys
conn = http.client.HTTPConnection("127.0.0.1", 8181, timeout=60)
path = "/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:02"
for r in range(100):
    body = {"force": True, "flows": [{"priority": 3100, "match": {"dl_type": 2048,
            "nw_dst": "10.79.%d.%d" % (i // 250, i % 250)}} for i in range(r * 200, r * 200 + 200)]}
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    res = conn.getresponse()
    text = res.read()
    if res.status != 202:
        sys.exit("POST %d: %d %s" % (r, res.status, text[:200]))
PY
# The flows node K stores as not deleted, "dpid priority nw_dst" a line, sorted.
stored() {
    cl_node_rest "$1" "/api/kytos/flow_manager/v2/stored_flows" |
        jq -r 'to_entries[] | .key as $d | .value[] | select(.state != "deleted") |
               "\($d) \(.flow.priority) \(.flow.match.nw_dst)"' | sort
}
stored 1 >"$work/node1.flows"
[ "$(wc -l <"$work/node1.flows")" = $((N - D + 20000)) ] ||
    fail "node 1 stores $(wc -l <"$work/node1.flows") flows, not $((N - D + 20000))"
pass "node 2 stopped; through node 1: $posted; $D deleted; 20,000 stored for br2"

# ---- killed -9 while it catches up, then again ----------------------------
mv "$work/node2.log" "$work/node2.first.log"
cl_node_start 2 "$work" --apps.topology=false 2>/dev/null &
starter=$!
# Polled, not wait_for_line: its tail returns only at the log's next line,
# and a node catching up writes none until it is done.
end=$((SECONDS + 60))
until grep -q "catching up with etcd from revision" "$work/node2.log" 2>/dev/null; do
    [ $SECONDS -lt $end ] || fail "node 2 did not start to catch up: $(tail -5 "$work/node2.log")"
    sleep 0.01
done
pid=$(cat "$work/node2.pid")
kill -9 "$pid"
wait "$starter" 2>/dev/null
cl_wait_gone "$pid" 10 || fail "node 2 alive after kill -9"
rm -f "$work/node2.pid"
mv "$work/node2.log" "$work/node2.killed.log"
cl_node_start 2 "$work" --apps.topology=false || fail "node 2 did not start after kill -9"
# Ready means its copy caught up: what it stores now is etcd's.
grep -q "not caught up with etcd" "$work/node2.log" && fail "node 2 said ready before it caught up"
stored 2 >"$work/node2.flows"
cmp -s "$work/node1.flows" "$work/node2.flows" ||
    fail "node 2 stores $(wc -l <"$work/node2.flows") flows, node 1 $((N - D + 20000)):" \
         "$(diff "$work/node1.flows" "$work/node2.flows" | head -5)"
# Where each start's catch-up began, and where the killed one was to end.
killed=$(grep -o 'catching up with etcd from revision [0-9]* to [0-9]*' "$work/node2.killed.log" |
         awk '{ print $7, $9 }')
again=$(grep -o 'catching up with etcd from revision [0-9]*' "$work/node2.log" | awk '{ print $7 }')
read -r k_from k_to <<<"$killed"
# (This etcd sends such a catch-up in one message, so the kill lands before
# its revision is recorded or after; a resume from the middle of one is
# store_etcd_catchup.sh's, against a fake that sends it in parts.)
[ -n "$again" ] && [ "$again" -ge "$k_from" ] ||
    fail "node 2 was to catch up from $k_from to $k_to, was killed, and started again from" \
         "${again:-nowhere}"
pass "node 2 killed -9 as it caught up (from revision $k_from to $k_to; its copy had" \
     "recorded $((again - 1))) and started again: it stores node 1's $((N - D + 20000))" \
     "flows, none of the $D deleted"

# ---- etcd's leader killed while a 1,000-flow request is being written -----
# The request is 16 transactions; the leader is killed -9 once the first of
# them is in (a watch from the revision before the request sees one of its
# flows). Its answer is 202 with all 1,000 in etcd, or says the outcome is
# not known; any other answer (a refusal, an error) with none of them in
# etcd.
etcdctl_() { etcdctl --endpoints="$CL_ETCD_ENDPOINTS" --command-timeout=20s "$@"; }
# How many of the request's flows (nw_dst 10.78.x.y) etcd holds.
in_etcd() {
    etcdctl_ get "${PREFIX}data/flows/" --prefix --print-value-only |
        grep -c '"nw_dst": *"10\.78\.'
}
rev=$(etcdctl_ get "${PREFIX}data/flows/" --prefix --count-only -w json | jq .header.revision)
leader=$(cl_etcd_leader) || fail "etcd has no leader"
timeout 60 etcdctl --endpoints="$CL_ETCD_ENDPOINTS" watch --rev=$((rev + 1)) --prefix \
    "${PREFIX}data/flows/" | grep -m1 -F '"10.78.' >"$work/first-put.txt" &
watcher=$!
python3 -c '
import json
print(json.dumps({"flows": [{"priority": 4000, "match": {"dl_type": 2048,
      "nw_dst": "10.78.%d.%d" % (i // 250, i % 250)}} for i in range(1000)]}))' >"$work/big.json"
curl -s -m 60 -o "$work/big-answer.txt" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' --data-binary @"$work/big.json" \
    "http://127.0.0.1:8181/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:01" \
    >"$work/big-code.txt" &
poster=$!
wait "$watcher" || true
[ -s "$work/first-put.txt" ] || fail "no part of the 1,000-flow request reached etcd"
kill -KILL "$(cat "$work/etcd$leader.pid")"
wait "$poster"
code=$(cat "$work/big-code.txt")
answer=$(cat "$work/big-answer.txt")
cl_wait_gone "$(cat "$work/etcd$leader.pid")" 10
rm -f "$work/etcd$leader.pid"
stored=$(in_etcd)
case $code in
    202) [ "$stored" = 1000 ] || fail "202 for 1,000 flows, $stored of them in etcd" ;;
    504) grep -q "outcome is not known" <<<"$answer" ||
             fail "504 without saying the outcome is not known: $answer" ;;
    *)   [ "$stored" = 0 ] || fail "answered $code ($answer) with $stored of the 1,000 in etcd" ;;
esac
pass "etcd leader (member $leader) killed -9 during a 1,000-flow request: answered $code" \
     "with $stored of them in etcd ($(head -c 120 <<<"$answer"))"
cl_etcd_start_member "$leader" || fail "etcd member $leader did not come back"
