#!/usr/bin/env bash
# The cluster's mastership with real peers: a three-member etcd on loopback,
# three ofcd nodes (each its own tap and subnet), 20 Open vSwitch bridges
# (fail_mode=secure) each connected to all three.
#   - every bridge has exactly one master (OVS's own view), spread: no node
#     more than one above an even share; the nodes agree (GET /api/v1/cluster);
#   - a fourth node given a live node's name writes nothing and refuses changes;
#   - kill -9 of the node that masters the most: every bridge has a master
#     among the survivors within lease TTL + 1 s of the kill, as OVS reports it;
#   - SIGSTOP of a master for longer than the TTL: the others take its
#     bridges, never two masters at once; SIGCONT: it has stepped down, joins
#     again behind the others and gets its share back;
#   - the killed node restarted: rejoins and takes its share back;
#   - the etcd leader killed: no mastership moves;
#   - two of three etcd members stopped: writes answer 503, health says out
#     of quorum, switches stay connected and keep their flows; started
#     again: writes are accepted again.
#
# usage: cluster_roles.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/cluster_ovs.sh"
. "$here/../../scripts/cluster-lib.sh"
require_root
command -v etcd >/dev/null || fail "etcd missing: scripts/install-deps installs etcd-server"

TTL=3
B=20
it_setup cluster
it_on_exit cl_all_stop
it_on_exit ovs_stop

cl_etcd_start "$work" || fail "the three-member etcd did not start"
for k in 1 2 3; do
    cl_node_start $k "$work" --cluster.lease_ttl_s=$TTL || fail "node $k did not start"
done
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges $B "$(cl_controllers 3)" 1000 || fail "cannot create the bridges"

wait_until 60 masters_spread $B 3 || fail "no even spread of masters: $(master_counts)"
pass "every bridge has one master, spread over the nodes: $(master_counts)"
for k in 1 2 3; do
    j=$(cl_node_rest $k /api/v1/cluster) || fail "node $k: GET /api/v1/cluster failed"
    agree=$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sum(1 for s in d["switches"] if s["master"]), len(d["nodes"]))' "$j")
    [ "$agree" = "$B 3" ] || fail "node $k sees masters/nodes '$agree', not '$B 3': $j"
done
pass "each node sees $B switches with a master and 3 nodes"

# A fourth node started with node 1's name writes nothing and refuses changes.
cl_node_start 4 "$work" --cluster.lease_ttl_s=$TTL --cluster.node_id=node1 ||
    fail "node 4 did not start"
wait_for_line "$work/node4.log" "node id node1 is held by a live node" 10 ||
    fail "node 4 did not notice its name is taken"
body=$(curl -s -X POST -H 'Content-Type: application/json' -d '{"flows": []}' \
    "http://127.0.0.1:8184/api/kytos/flow_manager/v2/flows")
grep -q "a live node still holds its name" <<<"$body" || fail "node 4 accepted a change: $body"
cl_node_stop 4 || fail "node 4 did not stop"
masters_spread $B 3 || fail "node 4 disturbed the masters: $(master_counts)"
pass "a node started with a live node's name waits and refuses changes"

# A flow on br1 through its master, to see it survive the quorum loss.
m1=$(bridge_masters | awk '$1 == "br1" { print $2 }')
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 4321, "match": {"dl_type": 2048}}]}' \
    "http://127.0.0.1:$((8180 + m1))/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:01")
[ "$code" = 202 ] || fail "POST to br1's master (node $m1) answered $code"
ovs_wait_flow br1 priority=4321 || fail "the flow did not reach br1"
pass "a flow POSTed to br1's master is installed"

# ---- kill -9 of the node that masters the most ---------------------------
victim=$(most_masters)
theirs=$(bridges_of $victim)
t0=$(date +%s%N)
cl_node_kill $victim KILL
# OVS writes a controller's role into its database a few seconds late (when
# a connection's state changes); the switch's ROLE_REPLY, which the new
# master logs, is when the switch made the change.
wait_until $((TTL + 10)) one_master_each $B $victim ||
    fail "after kill -9 of node $victim: no surviving master on some bridges: $(bridge_masters)"
db_ms=$((($(date +%s%N) - t0) / 1000000))
ms=$(took_over_ms "$t0" $victim "$theirs") || fail "no take-over of $theirs logged"
echo "failover of node $victim's bridges ($theirs): switches confirmed new masters ${ms} ms" \
     "after kill -9 (OVS's database showed it after $db_ms ms)"
[ $ms -le $(((TTL + 1) * 1000)) ] || fail "failover took $ms ms, more than TTL + 1 s"
pass "kill -9 of node $victim: new masters in $ms ms (TTL $TTL s)"
wait_until 20 masters_spread $B 2 || fail "survivors not spread: $(master_counts)"
pass "survivors spread the bridges: $(master_counts)"

# ---- the killed node restarted -------------------------------------------
cl_node_start $victim "$work" --cluster.lease_ttl_s=$TTL || fail "node $victim did not restart"
wait_until 60 masters_spread $B 3 || fail "node $victim did not get its share back: $(master_counts)"
pass "node $victim rejoined and took its share back: $(master_counts)"

# ---- SIGSTOP longer than the TTL -------------------------------------------
sleeper=$(most_masters)
cl_node_kill $sleeper STOP
wait_until $((TTL + 5)) one_master_each $B $sleeper ||
    fail "node $sleeper stopped: its bridges got no other master: $(master_counts)"
never_two=$(bridge_masters | awk '{ n[$1]++ } END { for (b in n) if (n[b] > 1) print b }')
[ -z "$never_two" ] || fail "two masters at once on: $never_two"
pass "node $sleeper stopped: the others took its bridges"
cl_node_kill $sleeper CONT
wait_for_line "$work/node$sleeper.log" "its lease is no longer proved" 5 ||
    fail "node $sleeper did not say it stepped down"
wait_for_line "$work/node$sleeper.log" "every switch's key is written anew" 10 ||
    fail "node $sleeper did not find its lease gone"
two=$(bridge_masters | awk '{ n[$1]++ } END { for (b in n) if (n[b] > 1) print b }')
[ -z "$two" ] || fail "after SIGCONT, two masters on: $two"
wait_until 60 masters_spread $B 3 || fail "node $sleeper did not get its share back: $(master_counts)"
pass "node $sleeper stepped down on SIGCONT, rejoined behind and got its share: $(master_counts)"

# ---- the etcd leader killed: no mastership moves -------------------------
before=$(bridge_masters | sort)
leader=$(cl_etcd_leader) || fail "no etcd leader"
cl_etcd_stop_member "$leader"
newleader=
for i in $(seq 100); do
    newleader=$(cl_etcd_leader 2>/dev/null) && [ "$newleader" != "$leader" ] && break
    sleep 0.1
done
[ -n "$newleader" ] && [ "$newleader" != "$leader" ] || fail "etcd elected no new leader"
# Two keepalive rounds under the new leader.
sleep_until=$(($(date +%s) + TTL))
while [ "$(date +%s)" -lt $sleep_until ]; do
    [ "$(bridge_masters | sort)" = "$before" ] || fail "masters moved after the etcd leader died"
    sleep 0.2
done
pass "etcd leader $leader killed: $newleader leads, no mastership moved"
cl_etcd_start_member "$leader" || fail "etcd member $leader did not come back"

# ---- two of three etcd members stopped -----------------------------------
post_code() {
    curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -d '{"flows": [{"priority": 4322, "match": {"dl_type": 2054}}]}' \
        "http://127.0.0.1:$((8180 + $1))/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:02"
}
refused() { [ "$(post_code "$1")" = 503 ]; }
first=$(((leader % 3) + 1))
second=$(((first % 3) + 1))
cl_etcd_stop_member $first
cl_etcd_stop_member $second
out_of_quorum() {
    curl -s "http://127.0.0.1:$((8180 + $1))/api/v1/health" | grep -q '"in_quorum": *false'
}
for k in 1 2 3; do
    wait_until $((TTL + 2)) refused $k || fail "node $k still accepts writes without quorum"
    wait_until $((TTL + 2)) out_of_quorum $k ||
        fail "node $k's health does not say it: $(cl_node_rest $k /api/v1/health)"
done
pass "no etcd quorum: every node answers writes 503 and says so in health"
[ "$(ovs_connected_count)" = $((B * 3)) ] || fail "switches lost their controllers"
ovs_wait_flow br1 priority=4321 || fail "br1 lost its flow"
pass "switches stay connected to all three nodes and keep their flows"
cl_etcd_start_member $first
cl_etcd_start_member $second
accepted() { [ "$(post_code "$1")" = 202 ]; }
for k in 1 2 3; do
    wait_until 30 accepted $k || fail "node $k does not accept writes once etcd is back"
done
wait_until 30 one_master_each $B || fail "bridges without a master after etcd came back"
pass "etcd back: writes accepted again, every bridge has a master"
echo "cluster_roles: all checks passed"
