#!/usr/bin/env bash
# scripts/cluster-lib.sh, as scripts/cluster-local uses it: a three-member
# etcd on loopback and three ofcd nodes on their own taps, with four Open
# vSwitch bridges (fail_mode=secure) each connected to all three nodes.
# Checks what someone trying the cluster on one machine relies on: etcd has
# three members and a leader and elects another when its leader dies, then
# takes the member back; each node answers /api/v1/health; every bridge's
# three controllers connect; the topology's records changed through one
# node (a switch's metadata added and deleted, the switch disabled and
# enabled) are shown by the others while they run; each node shows every
# node's lease TTL left; the links of a ring of patch ports, whose two ends
# are mastered by different nodes, are found and shown up by every node,
# and by the two left when one is killed; node 3's event stream carries
# the other nodes' events (their link and role changes, the flow.installed
# of a flow node 3 took for a bridge another node masters), marked with
# the node they happened on; a killed node is gone with its tap; a
# SIGTERMed node hands its bridges over, each confirmed by the switch,
# before it stops; stopping everything leaves no etcd or ofcd of this test
# running.
#
# usage: cluster_local.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/../../scripts/cluster-lib.sh"
require_root
require_tool etcd "etcd (etcd-server)"
require_tool etcdctl "etcdctl (etcd-client)"
require_tool jq

it_setup cluster-local
it_on_exit cl_all_stop
started=$SECONDS

cl_etcd_start "$work/cl" || fail "the three-member etcd did not start"
members=$(etcdctl --endpoints="$CL_ETCD_ENDPOINTS" member list -w json | jq '.members | length')
[ "$members" = 3 ] || fail "etcd lists $members members, expected 3"
leader=$(cl_etcd_leader) || fail "etcd has no leader"
pass "etcd: 3 members on $CL_ETCD_ENDPOINTS, member $leader leads"

for k in 1 2 3; do
    cl_node_start $k "$work/cl" --apps.topology=true --topology.lldp_interval_s=1 \
        --topology.link_timeout_s=8 || fail "node $k did not start"
done
for k in 1 2 3; do
    h=$(cl_node_rest $k /api/v1/health)
    jq -e '.status == "ok"' <<<"$h" >/dev/null ||
        fail "node $k's /api/v1/health: ${h:-no answer}"
done
pass "3 nodes answer /api/v1/health on 127.0.0.1:8181-8183"

# Node 3's event stream, from before the bridges come.
curl -sN http://127.0.0.1:8183/api/v1/events >"$work/ev3.txt" 2>/dev/null &
ev_pid=$!
it_on_exit "kill $ev_pid"
# until node 3's stream has an event $1 whose data jq -e $2 accepts, 10 s
streamed() {
    local end=$((SECONDS + 10))
    until grep -A1 "^event: $1\$" "$work/ev3.txt" | sed -n 's/^data: //p' |
            jq -s -e "map(select($2)) | length > 0" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}

ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 4 "$(cl_controllers 3)" 1000 || fail "cannot create the bridges"
[ "$(ovs_vsctl --bare --columns=_uuid list controller | grep -c .)" = 12 ] ||
    fail "OVS does not list 12 controllers (4 bridges x 3 nodes)"
ovs_wait_connected 12 30 || fail "not every bridge is connected to all three nodes"
for br in br1 br2 br3 br4; do
    c=0
    for uuid in $(ovs_vsctl get bridge $br controller | tr -d '[],'); do
        [ "$(ovs_vsctl get controller "$uuid" is_connected)" = true ] && c=$((c + 1))
    done
    [ "$c" = 3 ] || fail "$br: $c of its 3 controllers connected"
done
pass "4 bridges, each with its 3 controllers is_connected=true"


# The topology's records are shared: what one node changes, the others
# show while they run.
topo=/api/kytos/topology/v3
dp=00:00:00:00:00:00:10:01
# until node $1 answers $2 with JSON that jq -e $3 accepts, at most 10 s
shows() {
    local end=$((SECONDS + 10))
    until cl_node_rest $1 "$2" | jq -e "$3" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"site": "lab-a", "rack": 7}' "http://127.0.0.1:8181$topo/switches/$dp/metadata")
[ "$code" = 201 ] || fail "POST metadata to node 1 answered $code"
for k in 2 3; do
    shows $k "$topo/switches/$dp/metadata" '.metadata == {"site": "lab-a", "rack": 7}' ||
        fail "node $k does not show node 1's metadata: $(cl_node_rest $k "$topo/switches/$dp/metadata")"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE \
    "http://127.0.0.1:8182$topo/switches/$dp/metadata/rack")
[ "$code" = 200 ] || fail "DELETE of a metadata key on node 2 answered $code"
shows 1 "$topo/switches/$dp/metadata" '.metadata == {"site": "lab-a"}' ||
    fail "node 1 still shows the key node 2 deleted"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:8183$topo/switches/$dp/disable")
[ "$code" = 201 ] || fail "disabling $dp on node 3 answered $code"
for k in 1 2; do
    shows $k "$topo/switches" ".switches[\"$dp\"].enabled == false" ||
        fail "node $k does not show $dp disabled by node 3"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:8181$topo/switches/$dp/enable")
[ "$code" = 201 ] || fail "enabling $dp on node 1 answered $code"
shows 3 "$topo/switches" ".switches[\"$dp\"].enabled == true" ||
    fail "node 3 does not show $dp enabled again by node 1"
pass "metadata added and deleted, a switch disabled and enabled through one node: the others follow"

# A ring of patch ports: brK port 2 to brN port 1. The masters are spread
# over three nodes, so some links have their ends mastered by different
# nodes: the frames one node sends come back to another.
for k in 1 2 3 4; do
    n=$((k % 4 + 1))
    ovs_vsctl -- add-port br$k p$k-$n -- set interface p$k-$n type=patch \
        options:peer=p$n-$k ofport_request=2 -- add-port br$n p$n-$k -- \
        set interface p$n-$k type=patch options:peer=p$k-$n ofport_request=1 ||
        fail "cannot wire br$k to br$n"
done
ring='[.links[] | select(.active) | [.endpoint_a.id, .endpoint_b.id] | sort | join(" ")] | sort'
want='["00:00:00:00:00:00:10:01:1 00:00:00:00:00:00:10:04:2","00:00:00:00:00:00:10:01:2 00:00:00:00:00:00:10:02:1","00:00:00:00:00:00:10:02:2 00:00:00:00:00:00:10:03:1","00:00:00:00:00:00:10:03:2 00:00:00:00:00:00:10:04:1"]'
shows 1 /api/v1/cluster '[.switches[].master | strings] | length == 4' ||
    fail "not every bridge has a master: $(cl_node_rest 1 /api/v1/cluster | jq -c '[.switches[].master]')"
nm=$(cl_node_rest 1 /api/v1/cluster | jq '[.switches[].master] | unique | length')
[ "${nm:-0}" -ge 2 ] || fail "the 4 bridges have ${nm:-no} distinct masters: no link crosses nodes"
for k in 1 2 3; do
    shows $k /api/kytos/topology/v3/links "($ring) == $want" ||
        fail "node $k does not show the ring's 4 links up: $(cl_node_rest $k /api/kytos/topology/v3/links | jq -c "$ring")"
done
pass "a ring of 4 patch-port links, ends mastered by different nodes: every node shows all 4 up"

# Node 3's stream: the other nodes' events, named.
for k in 1 2; do
    streamed link.up ".node == \"node$k\"" ||
        fail "node 3's stream has no link.up from node $k: $(grep -c . "$work/ev3.txt") lines"
done
for m in $(cl_node_rest 3 /api/v1/cluster | jq -r '[.switches[].master] | unique | .[]'); do
    [ "$m" = node3 ] && continue
    streamed switch.role ".node == \"$m\" and .role == \"master\"" ||
        fail "node 3's stream has no switch.role master from $m, which masters a bridge"
done
streamed link.up 'has("node") | not' || fail "node 3's stream lacks its own link.up"
other=$(cl_node_rest 3 /api/v1/cluster |
    jq -r '[.switches[] | select(.master != "node3")][0] | "\(.dpid) \(.master)"')
read -r odp omaster <<<"$other"
[ -n "$odp" ] && [ "$omaster" != null ] || fail "no bridge mastered by another node than node 3"
odp_c=$odp
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 777, "match": {"dl_type": 2054}}]}' \
    "http://127.0.0.1:8183/api/kytos/flow_manager/v2/flows/$odp_c")
[ "$code" = 202 ] || fail "POST of a flow for $odp_c to node 3 answered $code"
streamed flow.installed ".node == \"$omaster\" and .dpid == \"$odp_c\"" ||
    fail "node 3's stream has no flow.installed on $odp_c from its master $omaster"
pass "node 3's stream: link.up of nodes 1 and 2, switch.role of the other masters, flow.installed by $omaster of a flow node 3 took"

# Each node shows every node's lease TTL left, as etcd says it (0..3 s).
for k in 1 2 3; do
    shows $k /api/v1/cluster \
        '[.nodes[] | .lease_ttl_left_s | numbers | select(. >= 0 and . <= 3)] | length == 3' ||
        fail "node $k does not show 3 leases' TTL left: $(cl_node_rest $k /api/v1/cluster | jq -c '[.nodes[] | {node_id, lease_ttl_left_s}]')"
done
pass "every node shows each node's lease TTL left"

# The etcd leader dies: the two others elect one of them (a member's
# /health is true only while it sees a leader), then the member comes back.
cl_etcd_stop_member "$leader"
end=$((SECONDS + 20))
while new=$(cl_etcd_leader); [ -z "$new" ] || [ "$new" = "$leader" ]; do
    [ $SECONDS -lt $end ] || fail "no new etcd leader 20 s after member $leader stopped"
    sleep 0.2
done
pass "etcd leader $leader stopped: member $new leads now"
cl_etcd_start_member "$leader" || fail "etcd member $leader did not come back"
for k in 1 2 3; do
    cl_etcd_healthy $k 20 || fail "etcd member $k unhealthy after member $leader rejoined"
done
[ "$(etcdctl --endpoints="$CL_ETCD_ENDPOINTS" endpoint health 2>&1 | grep -c 'is healthy')" = 3 ] ||
    fail "etcdctl does not report 3 healthy endpoints"
pass "etcd member $leader restarted with its data: 3 healthy"

downs() {
    cl_node_rest $1 /api/v1/topology | jq '[.links[].downs] | add'
}
downs1=$(downs 1)
downs3=$(downs 3)
pid2=$(cl_node_pid 2) || fail "node 2 has no pid"
killed=$SECONDS
cl_node_kill 2 || fail "cl_node_kill 2"
kill -0 "$pid2" 2>/dev/null && fail "node 2 (pid $pid2) still runs"
cl_node_pid 2 >/dev/null && fail "cl_node_pid still names node 2"
end=$((SECONDS + 10))
while ip link show ofc2 >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || fail "tap ofc2 still there 10 s after node 2 was killed"
    sleep 0.1
done
ip link show ofc1 >/dev/null 2>&1 && ip link show ofc3 >/dev/null 2>&1 ||
    fail "the other nodes' taps went with node 2's"
pass "node 2 killed: its process and tap ofc2 are gone, ofc1 and ofc3 stay"
# Node 2's bridges get new masters, which probe their ports: no link goes
# down, past the link timeout (8 s) after the last frame node 2 sent.
shows 1 /api/v1/cluster '[.switches[].master | select(. == "node1" or . == "node3")] | length == 4' ||
    fail "node 2's bridges have no new master: $(cl_node_rest 1 /api/v1/cluster | jq -c '[.switches[].master]')"
sleep $((killed + 9 - SECONDS > 0 ? killed + 9 - SECONDS : 0))
for k in 1 3; do
    got=$(cl_node_rest $k /api/kytos/topology/v3/links | jq -c "$ring")
    [ "$got" = "$(jq -c . <<<"$want")" ] ||
        fail "node $k lost the ring's links after node 2 died: $got"
done
[ "$(downs 1)" = "$downs1" ] && [ "$(downs 3)" = "$downs3" ] ||
    fail "links went down after node 2 died: downs $downs1 -> $(downs 1) (node 1), $downs3 -> $(downs 3) (node 3)"
pass "node 2's bridges remastered: nodes 1 and 3 show the 4 links up 9 s on, none went down"

# SIGTERM of the node that masters more of the two: a planned hand-over.
# It gives its switches to the other while its channels are up, and stops
# only once each switch has told it that another master took over.
m1=$(cl_node_rest 1 /api/v1/cluster | jq '[.switches[] | select(.master == "node1")] | length')
if [ "${m1:-0}" -ge 2 ]; then leaver=1 stayer=3; else leaver=3 stayer=1; fi
n_lv=$(cl_node_rest $stayer /api/v1/cluster |
    jq "[.switches[] | select(.master == \"node$leaver\")] | length")
[ "${n_lv:-0}" -ge 1 ] || fail "node $leaver masters no bridge: nothing to hand over"
cl_node_stop $leaver || fail "node $leaver did not stop cleanly after SIGTERM"
grep -q "node node$leaver handed its $n_lv switches over in [0-9]* ms, each confirmed" \
    "$work/cl/node$leaver.log" ||
    fail "node $leaver did not hand its $n_lv bridges over: $(grep 'cluster:' "$work/cl/node$leaver.log" | tail -5)"
shows $stayer /api/v1/cluster '[.switches[] | select(.master == "node'$stayer'" and .role == "master")] | length == 4' ||
    fail "node $stayer does not master the 4 bridges: $(cl_node_rest $stayer /api/v1/cluster | jq -c '[.switches[] | {dpid, master, role}]')"
pass "SIGTERM of node $leaver: its $n_lv bridges handed to node $stayer, each confirmed by the switch before it stopped ($(grep -o 'over in [0-9]* ms' "$work/cl/node$leaver.log"))"

pids=()
for k in $stayer; do pids+=("$(cl_node_pid $k)"); done
for k in 1 2 3; do pids+=("$(cat "$work/cl/etcd$k.pid")"); done
cl_all_stop
for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null && fail "pid $p ($(cat /proc/"$p"/comm)) still runs after cl_all_stop"
done
left=$(pgrep -f -- "$work/cl")
[ -z "$left" ] || fail "processes of this test left after cl_all_stop: $left"
pass "cl_all_stop: no etcd or ofcd of this test left"
echo "cluster_local: all checks passed in $((SECONDS - started)) s"
