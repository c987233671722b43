#!/usr/bin/env bash
# The cluster's mastership with real peers: a three-member etcd on loopback,
# three ofcd nodes (each its own tap and subnet), 20 Open vSwitch bridges
# (fail_mode=secure) each connected to all three.
#   - every bridge has exactly one master (OVS's own view), spread: no node
#     more than one above an even share; the nodes agree (GET /api/v1/cluster);
#   - a fourth node given a live node's name writes nothing and refuses changes;
#   - 2,000 flows POSTed round-robin to the three nodes (through etcd): each
#     installed once, by its bridge's master; every node stores all of them
#     installed;
#   - a group POSTed to a node that is not its bridge's master, changed
#     through another, deleted through the first: each laid by the master
#     (ovs-ofctl dump-groups), "installed" there, "unknown" on the others;
#   - kill -9 of the node that masters the most: every bridge has a master
#     among the survivors within lease TTL + 1 s of the kill, as OVS reports it;
#     300 flows POSTed to the survivors meanwhile all installed once, none of
#     the 2,000 lost or doubled, no consistency check finding an alien flow;
#     a group POSTed meanwhile, and one stored before but deleted behind
#     ofcd's back, laid by the bridge's new master;
#   - SIGSTOP of a master for longer than the TTL: the others take its
#     bridges, never two masters at once; SIGCONT: a change sent to it while
#     it was stopped answers 503 (its lease is past), it has stepped down, joins
#     again behind the others and gets its share back;
#   - the killed node restarted: rejoins, resumes from the revision its mirror
#     recorded (no full read) with the flows POSTed while it was down, and
#     takes its share back;
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

# ---- flows through etcd: POSTed to any node, installed by the master ------
N=2000
# How many flows of priority $2 bridge $1 holds.
flows_on() { ovs_dump_flows "$1" | grep -c "priority=$2[ ,]"; }
# Every bridge holds exactly its share of the $2 flows of priority $1
# (cluster_post.py puts flow i on bridge i % B + 1).
all_installed() {
    local b want
    for b in $(seq $B); do
        want=$(($2 / B + ((b - 1) < $2 % B ? 1 : 0)))
        [ "$(flows_on br$b $1)" = $want ] || return 1
    done
}
# Node $1 stores $3 flows of priority $2, every one installed.
stored_installed() {
    cl_node_rest $1 "/api/kytos/flow_manager/v2/stored_flows" |
        jq -e --argjson p $2 --argjson n $3 \
            '[.[][] | select(.flow.priority == $p)] | length == $n and all(.state == "installed")' \
            >/dev/null
}
ports=8181,8182,8183
posted=$(python3 "$here/cluster_post.py" $ports $N $B 2000 | tr '\n' ' ') ||
    fail "POSTs round-robin to the three nodes: $posted"
wait_until 60 all_installed 2000 $N ||
    fail "not every flow installed once: br1 holds $(flows_on br1 2000) of $((N / B))"
for k in 1 2 3; do
    wait_until 30 stored_installed $k 2000 $N || fail "node $k does not store all $N installed"
done
pass "$N flows POSTed round-robin to the three nodes ($posted): each installed once by" \
     "its bridge's master, every node stores all of them installed"

# ---- groups and meters through etcd: any node takes them, the master lays them
# has_group BR ID: ovs-ofctl (an independent reader) lists group ID on BR.
has_group() {
    ovs-ofctl -O OpenFlow13 dump-groups "unix:$OVS_DIR/$1.mgmt" | grep -q "group_id=$2,"
}
no_group() { ! has_group "$@"; }
# gm_state K BR ID: the state node K lists for group ID of BR.
gm_state() {
    cl_node_rest $1 "/api/v1/switches/00000000000010$(printf %02x "${2#br}")/groups/$3" |
        jq -r .state
}
state_is() { [ "$(gm_state "$1" "$2" "$3")" = "$4" ]; }
gm_send() {   # gm_send METHOD K BR PATH [BODY]: the status
    curl -s -m 15 -o "$work/gm-answer" -w '%{http_code}' -X "$1" \
        -H 'Content-Type: application/json' ${5:+--data-binary "$5"} \
        "http://127.0.0.1:$((8180 + $2))/api/v1/switches/00000000000010$(printf %02x "${3#br}")/$4"
}
group_body() {
    echo "{\"group_id\": $1, \"type\": \"all\", \"buckets\": [{\"actions\": [{\"action_type\": \"output\", \"port\": $2}]}]}"
}
m1=$(bridge_masters | awk '$1 == "br1" { print $2 }')
o1=$((m1 % 3 + 1))
o2=$((o1 % 3 + 1))
code=$(gm_send POST $o1 br1 groups "$(group_body 7 5)")
[ "$code" = 202 ] || fail "a group POSTed to node $o1 (not br1's master) answered $code: $(cat "$work/gm-answer")"
wait_until 10 has_group br1 7 || fail "group 7 POSTed to node $o1 did not reach br1 (master node $m1)"
wait_until 10 state_is $m1 br1 7 installed ||
    fail "br1's master (node $m1) lists group 7 as $(gm_state $m1 br1 7), not installed"
state_is $o2 br1 7 unknown || fail "node $o2 (not br1's master) lists group 7 as $(gm_state $o2 br1 7)"
code=$(gm_send POST $o2 br1 groups "$(group_body 7 6)")
[ "$code" = 202 ] || fail "group 7 changed through node $o2 answered $code"
wait_until 10 eval 'ovs-ofctl -O OpenFlow13 dump-groups "unix:$OVS_DIR/br1.mgmt" | grep -q "group_id=7,.*output:6"' ||
    fail "group 7 changed through node $o2 not changed on br1"
code=$(gm_send DELETE $o1 br1 groups/7)
[ "$code" = 200 ] || fail "DELETE of group 7 through node $o1 answered $code"
wait_until 10 no_group br1 7 || fail "group 7 deleted through node $o1 is still on br1"
for k in 1 2 3; do
    [ "$(gm_send GET $k br1 groups/7)" = 404 ] || fail "node $k still lists the deleted group 7"
done
pass "a group POSTed to node $o1, changed through node $o2, deleted through node $o1:" \
     "each laid on br1 by its master (node $m1; ovs-ofctl), installed there, unknown elsewhere"

# ---- kill -9 of the node that masters the most ---------------------------
victim=$(most_masters)
theirs=$(bridges_of $victim)
# A group stored for each of its bridges before, and one POSTed during, the
# failover: the new masters lay them all.
gbr=${theirs%% *}
code=$(gm_send POST $((victim % 3 + 1)) $gbr groups "$(group_body 8 5)")
[ "$code" = 202 ] || fail "group 8 for $gbr answered $code"
wait_until 10 has_group $gbr 8 || fail "group 8 did not reach $gbr"
ovs-ofctl -O OpenFlow13 del-groups "unix:$OVS_DIR/$gbr.mgmt" group_id=8
survivors=$(for k in 1 2 3; do [ $k = $victim ] || printf '%s,' $((8180 + k)); done)
t0=$(date +%s%N)
cl_node_kill $victim KILL
# While the survivors take over: flows POSTed to them, for every bridge.
python3 "$here/cluster_post.py" "${survivors%,}" 300 $B 2001 > "$work/failover-posts.txt" &
poster=$!
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
code=$(gm_send POST $((victim % 3 + 1)) $gbr groups "$(group_body 9 5)")
[ "$code" = 202 ] || fail "group 9 POSTed to a survivor during the failover answered $code: $(cat "$work/gm-answer")"
wait $poster || fail "POSTs to the survivors during the failover: $(cat "$work/failover-posts.txt")"
wait_until 30 all_installed 2001 300 ||
    fail "flows POSTed during the failover not all installed once: br1 holds" \
         "$(flows_on br1 2001) of $((300 / B))"
all_installed 2000 $N || fail "flows installed before the failover lost or doubled after it"
for k in 1 2 3; do
    [ $k = $victim ] && continue
    wait_until 30 stored_installed $k 2001 300 || fail "node $k does not store the 300 installed"
    a=$(curl -s "http://127.0.0.1:$((8180 + k))/metrics" |
        awk '/^ofcd_flow_manager_total\{what="alien_deleted"\}/ { print $2 }')
    [ "${a:-x}" = 0 ] || fail "node $k's consistency check deleted ${a:-?} flows nobody stored"
done
pass "300 flows POSTed to the survivors during the failover ($(tr '\n' ' ' <"$work/failover-posts.txt")):" \
     "all installed once, none of the $N before lost or doubled, no alien flow"
wait_until 20 masters_spread $B 2 || fail "survivors not spread: $(master_counts)"
pass "survivors spread the bridges: $(master_counts)"
wait_until 10 has_group $gbr 9 || fail "group 9 POSTed during the failover is not on $gbr"
wait_until 10 has_group $gbr 8 ||
    fail "group 8, stored before the failover and deleted behind its back, not laid again on $gbr"
pass "$gbr's new master laid group 9 (POSTed during the failover) and group 8 (stored before)"

# ---- the killed node restarted -------------------------------------------
cl_node_start $victim "$work" --cluster.lease_ttl_s=$TTL || fail "node $victim did not restart"
wait_until 60 masters_spread $B 3 || fail "node $victim did not get its share back: $(master_counts)"
pass "node $victim rejoined and took its share back: $(master_counts)"
grep -Eq "mirrored in .* \(revision [1-9][0-9]*\)" "$work/node$victim.log" &&
    ! grep -q "read the cluster's records" "$work/node$victim.log" ||
    fail "node $victim did not resume from the revision its mirror recorded"
wait_until 30 stored_installed $victim 2001 300 ||
    fail "node $victim came back without the flows POSTed while it was down"
pass "node $victim resumed from its mirror's revision and has the 300 flows POSTed meanwhile"

# ---- SIGSTOP longer than the TTL -------------------------------------------
sleeper=$(most_masters)
cl_node_kill $sleeper STOP
wait_until $((TTL + 5)) one_master_each $B $sleeper ||
    fail "node $sleeper stopped: its bridges got no other master: $(master_counts)"
never_two=$(bridge_masters | awk '{ n[$1]++ } END { for (b in n) if (n[b] > 1) print b }')
[ -z "$never_two" ] || fail "two masters at once on: $never_two"
pass "node $sleeper stopped: the others took its bridges"
# A change sent to it while it is stopped waits in its socket; it is the
# first thing it answers after SIGCONT, with its lease past: 503.
curl -s -m 30 -o "$work/stopped-post.txt" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 4323, "match": {"dl_type": 2048}}]}' \
    "http://127.0.0.1:$((8180 + sleeper))/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:03" \
    >"$work/stopped-code.txt" &
stopped_post=$!
# The kernel holds the request for the stopped process: a connection to
# its REST port with bytes waiting to be read.
request_waits() {
    ss -Htn state established "( sport = :$((8180 + sleeper)) )" | awk '$1 > 0 { f = 1 } END { exit !f }'
}
wait_until 5 request_waits || fail "the POST to the stopped node $sleeper did not reach its socket"
cl_node_kill $sleeper CONT
wait $stopped_post
[ "$(cat "$work/stopped-code.txt")" = 503 ] ||
    fail "a POST to node $sleeper while stopped answered $(cat "$work/stopped-code.txt") after SIGCONT: $(cat "$work/stopped-post.txt")"
pass "node $sleeper answered the change sent while it was stopped with 503: $(cat "$work/stopped-post.txt")"
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
