#!/usr/bin/env bash
# Circuits in a cluster, with real peers: a three-member etcd, two ofcd
# nodes, three Open vSwitch bridges in a ring (br1 - br2 - br3 - br1,
# patch ports, links found by LLDP) connected to both, hosts in namespaces.
#   - the eldest node (node 1) leads: its health says so on both nodes; a
#     change sent to node 2 answers 503 naming node 1 and its REST address;
#   - an EVC br1:1 - br3:1 created on node 1: h1 pings h3; node 2 lists the
#     same EVC, with the same path, without being told (the store's watch);
#   - node 1 killed -9: node 2 leads (its health, its log); the EVC's link
#     cut: node 2 moves it (its path on node 2 avoids the link) and h1 still
#     pings h3;
#   - its bandwidth (apps.mef_eline_meters) enforced by a meter at each UNI
#     (ovs-ofctl dump-meters, the flow's meter instruction); a PATCH on node 1
#     followed by node 2 within 3 s (the watch, not the minute's re-read);
#   - node 1 started again: node 2 still leads (the eldest now), and node 1's
#     copy shows the path node 2 chose;
#   - schedules (evc/schedule/): "remove" at a date takes the EVC off (the
#     ping stops), "create" lays it again; listed on node 1; PATCH, DELETE,
#     and the 400/404/503 answers;
#   - DELETE: refused by node 1, made by node 2: archived on both, the
#     meters gone from the bridges, the ping stops;
#   - the leader (node 2) stopped, a create sent to it, its member key
#     deleted from etcd (as a lease that ran out while it was paused), then
#     resumed: the create answers 503 and etcd holds no new record, whether
#     its own check or etcd's compare on the key its write carries refused.
#
# usage: cluster_eline.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/cluster_ovs.sh"
. "$here/../../scripts/cluster-lib.sh"
require_root
require_tool jq
command -v etcd >/dev/null || fail "etcd missing: scripts/install-deps installs etcd-server"

TTL=3
it_setup cluster-eline
it_on_exit cl_all_stop
it_on_exit ovs_stop
# A link timeout past the lease's TTL and a probe (cfg_cluster.c says why):
# a dead master's switches are quiet until node 2 masters them.
node_args=(--cluster.lease_ttl_s=$TTL --topology.lldp_interval_s=1 --topology.link_timeout_s=6
           --apps.mef_eline=true --apps.mef_eline_meters=true
           --flow_manager.consistency_min_interval_s=2)
EL=/api/kytos/mef_eline/v2
dpid() { printf '00:00:00:00:00:00:%02x:%02x' $(((0x1000 + $1) >> 8)) $(((0x1000 + $1) & 255)); }

host() {   # host N BRIDGE PORT: namespace ofcd-cN with 10.95.0.N/24, its veth on BRIDGE:PORT
    local n=$1 br=$2 port=$3
    it_on_exit ip netns del ofcd-c$n
    it_on_exit ip link del ofcd-cv$n
    ip netns add ofcd-c$n || fail "cannot create namespace ofcd-c$n"
    ip link add ofcd-cv$n type veth peer name eth0 netns ofcd-c$n || fail "cannot create a veth"
    ip link set ofcd-cv$n up
    ip -n ofcd-c$n addr add 10.95.0.$n/24 dev eth0
    ip -n ofcd-c$n link set eth0 up
    ovs_vsctl add-port "$br" ofcd-cv$n -- set interface ofcd-cv$n ofport_request=$port ||
        fail "cannot add h$n's port"
}
ping_ok() { ip netns exec ofcd-c$1 ping -c 5 -i 0.2 -W 1 "$2" 2>&1 | grep -qE ' [1-5] received'; }
links_up() {   # links_up K N: node K's topology has N links up
    [ "$(cl_node_rest $1 /api/kytos/topology/v3/links |
         jq '[.links[] | select(.status == "UP")] | length')" = "$2" ]
}
leader_is() {   # leader_is K NAME: node K's health names NAME as the leader
    [ "$(cl_node_rest $1 /api/v1/health | jq -r .cluster.leader)" = "$2" ]
}
path_of() {   # path_of K ID: node K's current path of EVC ID, "dpid:port-dpid:port ..." sorted
    cl_node_rest $1 "$EL/evc/$2" |
        jq -r '[.current_path[] | [.endpoint_a.id, .endpoint_b.id] | sort | join("-")] | sort | join(" ")'
}
same_path() { [ -n "$(path_of 1 "$1")" ] && [ "$(path_of 1 "$1")" = "$(path_of 2 "$1")" ]; }
field_is() {   # field_is K ID JQ VALUE: node K's EVC ID has JQ = VALUE
    [ "$(cl_node_rest $1 "$EL/evc/$2" | jq -r "$3")" = "$4" ]
}
ofctl() { ovs-ofctl -O OpenFlow13 "$1" "unix:$OVS_DIR/$2.mgmt" "${@:3}"; }
metered() {   # metered BR ID: meter ID on BR drops past 100 Mbit/s, and a flow goes through it
    ofctl dump-meters "$1" | tr '\n' ' ' | grep -q "meter=$2 kbps burst stats bands= *type=drop rate=100000 burst_size=10000" &&
        ofctl dump-flows "$1" | grep -q "meter:$2,"
}
no_meters() { ! ofctl dump-meters "$1" | grep -q "meter="; }
leads_now() { grep -q "this node now makes the circuits' changes" "$work/node$1.log"; }

cl_etcd_start "$work" || fail "the three-member etcd did not start"
cl_node_start 1 "$work" "${node_args[@]}" || fail "node 1 did not start"
cl_node_start 2 "$work" "${node_args[@]}" || fail "node 2 did not start"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 3 "$(cl_controllers 2)" 1000 || fail "cannot create the bridges"
ovs_vsctl -- add-port br1 p1-2 -- set interface p1-2 type=patch options:peer=p2-1 ofport_request=2 \
          -- add-port br2 p2-1 -- set interface p2-1 type=patch options:peer=p1-2 ofport_request=2 \
          -- add-port br2 p2-3 -- set interface p2-3 type=patch options:peer=p3-2 ofport_request=3 \
          -- add-port br3 p3-2 -- set interface p3-2 type=patch options:peer=p2-3 ofport_request=2 \
          -- add-port br1 p1-3 -- set interface p1-3 type=patch options:peer=p3-1 ofport_request=3 \
          -- add-port br3 p3-1 -- set interface p3-1 type=patch options:peer=p1-3 ofport_request=3 ||
    fail "cannot patch the bridges"
host 1 br1 1
host 3 br3 1
wait_until 60 one_master_each 3 || fail "the bridges have no master each: $(bridge_masters)"
for k in 1 2; do
    wait_until 30 links_up $k 3 || fail "node $k did not find the ring's three links"
done
pass "two nodes, three bridges in a ring: a master each ($(master_counts)), three links on both"

# ---- the leader ------------------------------------------------------------------------------
for k in 1 2; do
    wait_until 10 leader_is $k node1 ||
        fail "node $k names $(cl_node_rest $k /api/v1/health | jq -r .cluster.leader) as the leader"
done
body='{"name": "c1", "uni_a": {"interface_id": "'"$(dpid 1)"':1"}, "uni_z": {"interface_id": "'"$(dpid 3)"':1"}, "enabled": true, "dynamic_backup_path": true, "bandwidth": 100}'
code=$(curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "http://127.0.0.1:8182$EL/evc/")
[ "$code" = 503 ] && grep -q "node1 at 127.0.0.1:8181" "$work/answer" ||
    fail "an EVC sent to node 2 (not the leader) answered $code: $(cat "$work/answer")"
[ "$(cl_node_rest 1 "$EL/evc/" | jq length)" = 0 ] || fail "node 2's refusal created an EVC"
pass "node 1 leads on both nodes; node 2 refuses a change naming it: $(jq -r .description "$work/answer")"

# ---- an EVC on the leader, followed by the other node --------------------------------------------
code=$(curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "http://127.0.0.1:8181$EL/evc/")
[ "$code" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] ||
    fail "POST of an EVC to node 1: $code $(cat "$work/answer")"
ID=$(jq -r .circuit_id "$work/answer")
ping_ok 1 10.95.0.3 || fail "h1 cannot ping h3 over the EVC"
# Followed through the watch, well within the minute of the full re-read.
wait_until 3 same_path "$ID" ||
    fail "node 2's copy of EVC $ID: path '$(path_of 2 "$ID")', node 1's '$(path_of 1 "$ID")'"
[ "$(cl_node_rest 2 "$EL/evc/$ID" | jq -r '.name + " " + (.active | tostring)')" = "c1 true" ] ||
    fail "node 2's copy of EVC $ID: $(cl_node_rest 2 "$EL/evc/$ID")"
first=$(path_of 1 "$ID")
pass "EVC $ID created on node 1: h1 pings h3; node 2 lists it active on the same path ($first)"
M=$(cl_node_rest 1 "$EL/evc/$ID" | jq -r .id | python3 -c 'import sys; print(int(sys.stdin.read(), 16) % ((0xffff0000 - 1) // 2) * 2 + 1)')
wait_until 10 metered br1 $M || fail "br1 has no meter $M at 100 Mbit/s on the EVC's flow: $(ofctl dump-meters br1)"
wait_until 10 metered br3 $((M + 1)) || fail "br3 has no meter $((M + 1)): $(ofctl dump-meters br3)"
pass "bandwidth 100: meter $M on br1 and $((M + 1)) on br3 (ovs-ofctl), each on the traffic entering there"
# no_meter_changed K: node K's consistency checks never read one of its own
# groups or meters back as changed (what the switch lists is what was sent).
no_meter_changed() {
    local n
    n=$(curl -s "http://127.0.0.1:$((8180 + $1))/metrics" |
        awk '/^ofcd_flow_manager_total\{what="gm_changed_relaid"\}/ { print $2 }')
    [ "${n:-x}" = 0 ] || fail "node $1 put back ${n:-?} groups or meters its checks read as changed"
}
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
    --data-binary '{"name": "c1-renamed", "owner": "noc"}' "http://127.0.0.1:8181$EL/evc/$ID")
[ "$code" = 200 ] || fail "PATCH on node 1: $code $(cat "$work/answer")"
wait_until 3 field_is 2 "$ID" '.name + " " + .owner' "c1-renamed noc" ||
    fail "node 2 did not follow the PATCH: $(cl_node_rest 2 "$EL/evc/$ID" | jq -c '{name, owner}')"
pass "a PATCH of name and owner on node 1 followed by node 2 within 3 s"

# ---- the leader killed: the next one moves the EVC ------------------------------------------------
cl_node_kill 1 KILL || fail "cannot kill node 1"
wait_until $((TTL + 10)) leader_is 2 node2 || fail "node 2 does not lead after node 1's kill -9"
wait_until 10 leads_now 2 || fail "node 2 did not log that it makes the circuits' changes"
wait_until $((TTL + 10)) one_master_each 3 1 || fail "node 2 masters not every bridge: $(bridge_masters)"
# Cut a link of the path: the chord when the path takes it, else br1 - br2.
if grep -q "$(dpid 1):3" <<<"$first"; then cut=p1-3; else cut=p1-2; fi
ovs_vsctl del-port br1 $cut || fail "cannot cut $cut"
moved() { p=$(path_of 2 "$ID"); [ -n "$p" ] && [ "$p" != "$first" ] && ! grep -q "$(dpid 1):${cut#p1-}" <<<"$p"; }
wait_until 20 moved || fail "node 2 did not move EVC $ID off $cut: its path is '$(path_of 2 "$ID")'"
ping_ok 1 10.95.0.3 || fail "h1 cannot ping h3 after node 2 moved the EVC"
pass "node 1 killed: node 2 leads and moved EVC $ID off the cut link $cut ($(path_of 2 "$ID")); h1 pings h3"

# ---- the old leader back: it follows -----------------------------------------------------------
cl_node_start 1 "$work" "${node_args[@]}" || fail "node 1 did not start again"
wait_until 10 leader_is 1 node2 || fail "node 1, back, names $(cl_node_rest 1 /api/v1/health | jq -r .cluster.leader) as the leader"
wait_until 10 same_path "$ID" ||
    fail "node 1's copy after its restart: '$(path_of 1 "$ID")', node 2's '$(path_of 2 "$ID")'"
# Node 2 moved the EVC once, for the cut: the take-over itself (node 1's
# switches quiet until node 2 mastered them) read no link as down.
moves=$(grep -c "EVC $ID .*laid again" "$work/node2.log")
[ "$moves" = 1 ] || fail "node 2 moved EVC $ID $moves times: $(grep "EVC $ID .*laid again" "$work/node2.log")"
pass "node 1 back: node 2 still leads, node 1's copy has the path node 2 chose; node 2 moved it once"

no_meter_changed 2
pass "node 2, master of every bridge since the kill, never read a meter or group as changed"

# ---- schedules: taken off at a date, laid again at another ------------------------------------
sched() {   # sched METHOD K PATH [BODY]: the status; the answer in $work/sched
    curl -s -o "$work/sched" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
        ${4:+--data-binary "$4"} "http://127.0.0.1:$((8180 + $2))$EL/evc/schedule/$3"
}
at_in() { date -u -d "+$1 sec" +%Y-%m-%dT%H:%M:%S; }
code=$(sched POST 2 "" '{"circuit_id": "'"$ID"'", "schedule": {"action": "remove", "date": "'"$(at_in 3)"'"}}')
[ "$code" = 201 ] || fail "a schedule POSTed to node 2: $code $(cat "$work/sched")"
SID=$(jq -r .id "$work/sched")
[ ${#SID} = 32 ] || fail "the schedule's id '$SID' is not 32 hex digits"
listed() { cl_node_rest 1 "$EL/evc/schedule/" | jq -e --arg s "$SID" --arg c "$ID" \
               'any(.[]; .schedule_id == $s and .circuit_id == $c and .schedule.action == "remove")' >/dev/null; }
wait_until 3 listed || fail "node 1 does not list schedule $SID: $(cl_node_rest 1 "$EL/evc/schedule/")"
wait_until 10 field_is 2 "$ID" '(.active|tostring) + " " + (.enabled|tostring)' "false false" ||
    fail "the remove schedule did not take EVC $ID off: $(cl_node_rest 2 "$EL/evc/$ID" | jq -c '{active, enabled}')"
ping_ok 1 10.95.0.3 && fail "h1 still pings h3 after the remove schedule"
code=$(sched POST 2 "" '{"circuit_id": "'"$ID"'", "schedule": {"date": "'"$(at_in 2)"'"}}')
[ "$code" = 201 ] && [ "$(jq -r .action "$work/sched")" = create ] ||
    fail "a create schedule: $code $(cat "$work/sched")"
wait_until 10 field_is 2 "$ID" '(.active|tostring) + " " + (.enabled|tostring)' "true true" ||
    fail "the create schedule did not lay EVC $ID again"
ping_ok 1 10.95.0.3 || fail "h1 cannot ping h3 after the create schedule"
code=$(sched PATCH 2 "$SID" '{"action": "remove", "frequency": "0 3 * * sat"}')
[ "$code" = 200 ] && [ "$(jq -r .id "$work/sched")" = "$SID" ] ||
    fail "PATCH of schedule $SID: $code $(cat "$work/sched")"
[ "$(sched PATCH 2 0123456789abcdef0123456789abcdef '{"frequency": "bad"}')" = 404 ] ||
    fail "PATCH of an unknown schedule with a bad body: $(cat "$work/sched") (Kytos: 404 first)"
[ "$(sched PATCH 2 "$SID" '{"frequency": "0 25 * * *"}')" = 400 ] &&
    grep -q "schedule.frequency: '25' is not an hour (0-23)" "$work/sched" ||
    fail "a bad crontab answered $(cat "$work/sched")"
[ "$(sched POST 2 "" '{"circuit_id": "00000000000000", "schedule": {"date": "'"$(at_in 60)"'"}}')" = 404 ] ||
    fail "a schedule for an unknown circuit: $(cat "$work/sched")"
# Schedules given in a PATCH of the EVC get ids too, as Kytos gives them.
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
    --data-binary '{"circuit_scheduler": [{"action": "remove", "date": "2099-01-01T00:00:00"}]}' \
    "http://127.0.0.1:8182$EL/evc/$ID")
[ "$code" = 200 ] || fail "PATCH of circuit_scheduler: $code $(cat "$work/answer")"
n=$(cl_node_rest 2 "$EL/evc/schedule/" | jq '[.[] | select(.circuit_id == "'"$ID"'" and (.schedule_id | test("^[0-9a-f]{32}$")))] | length')
[ "$n" = 1 ] || fail "the PATCHed schedule has no id: $(cl_node_rest 2 "$EL/evc/schedule/")"
SID=$(cl_node_rest 2 "$EL/evc/schedule/" | jq -r '.[] | select(.circuit_id == "'"$ID"'") | .schedule_id')
[ "$(sched DELETE 1 "$SID")" = 503 ] || fail "DELETE of a schedule on node 1 (not the leader): $(cat "$work/sched")"
[ "$(sched DELETE 2 "$SID")" = 200 ] && [ "$(cat "$work/sched")" = '"Schedule removed"' ] ||
    fail "DELETE of schedule $SID: $(cat "$work/sched")"
[ "$(sched DELETE 2 "$SID")" = 404 ] || fail "DELETE of schedule $SID again: $(cat "$work/sched")"
pass "schedules: remove at a date took EVC $ID off (the ping stopped), create laid it again," \
     "listed on node 1, PATCH kept the id, 400/404/503 as expected, DELETE removed it"

# ---- DELETE on the leader: flows and meters gone, followed --------------------------------------
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X DELETE "http://127.0.0.1:8181$EL/evc/$ID")
[ "$code" = 503 ] || fail "DELETE on node 1 (not the leader now) answered $code"
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X DELETE "http://127.0.0.1:8182$EL/evc/$ID")
[ "$code" = 200 ] || fail "DELETE on node 2: $code $(cat "$work/answer")"
wait_until 3 field_is 1 "$ID" .archived true || fail "node 1 did not follow the DELETE"
for b in br1 br3; do
    wait_until 10 no_meters $b || fail "$b keeps a meter after the DELETE: $(ofctl dump-meters $b)"
done
ping_ok 1 10.95.0.3 && fail "h1 still pings h3 after the DELETE"
pass "DELETE refused on node 1, made on node 2: archived on both, meters gone, the ping stops"
# ---- a leader paused past its lease writes nothing when it resumes ----------------------------
ec() { ETCDCTL_API=3 etcdctl --endpoints "$(cl_etcd_client 1)" "$@"; }
records() { ec get --prefix --keys-only /ofcd/v1/data/apps/mef_eline/evc/ | grep -c .; }
# The request waits in node 2's socket (its process stopped: not accepted).
queued() { ss -Htn state established "( sport = :8182 )" | awk '$1 > 0 { f = 1 } END { exit !f }'; }
before=$(records)
pid2=$(cl_node_pid 2)
kill -STOP "$pid2"
curl -s -o "$work/answer2" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "${body/\"c1\"/\"c2\"}" "http://127.0.0.1:8182$EL/evc/" >"$work/code2" &
cpid=$!
wait_until 5 queued || { kill -CONT "$pid2"; fail "the create never reached node 2's socket"; }
ec del /ofcd/v1/members/node2 >/dev/null || { kill -CONT "$pid2"; fail "etcdctl del failed"; }
kill -CONT "$pid2"
wait "$cpid"
code=$(cat "$work/code2")
[ "$code" = 503 ] || fail "node 2, resumed without its member key, answered $code: $(cat "$work/answer2")"
[ "$(records)" = "$before" ] || fail "node 2, resumed without its member key, wrote a record"
if grep -q "etcd refused its write" "$work/answer2"; then how="etcd's compare on its member key"
else how="its own check (its watch saw the key go first)"; fi
pass "the leader stopped, its member key deleted, resumed: a create answered 503, nothing stored" \
     "(refused by $how)"
echo "cluster_eline: all checks passed"
