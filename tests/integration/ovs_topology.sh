#!/usr/bin/env bash
# Topology discovery against Open vSwitch (user space): 20 bridges wired in a
# ring plus two chords with patch ports, ofcd with apps.topology=true.
#  - every link is found both ways, within two probe intervals of the last
#    LLDP flow reaching its switch, with Kytos-ng's link ids;
#  - the LLDP flows are ofcd's stored flows (owner of_lldp, cookie 0xab<<56 |
#    dpid) and the consistency check never deletes them as aliens;
#  - a port taken down (PORT_STATUS) takes its link down at once, a deleted
#    patch port within link_timeout_s; both come back when restored;
#  - of_lldp's interfaces/disable stops a port's LLDP and so its link;
#  - the event stream tells every link change, each LLDP flow installed, a
#    switch's own FLOW_REMOVED and a delete through the API;
#  - link metadata, disabled links/interfaces/switches and liveness survive
#    a restart of ofcd.
#
# usage: ovs_topology.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vsctl "Open vSwitch"

it_setup topology
N=20
INTERVAL=1
TIMEOUT=3
API=http://127.0.0.1:8181/api/kytos/topology/v3
LLDP_API=http://127.0.0.1:8181/api/kytos/of_lldp/v1
log=$work/ofcd.log
ofcd_args=(--config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0
           --apps.topology=true --topology.lldp_interval_s=$INTERVAL
           --topology.link_timeout_s=$TIMEOUT --openflow.stats_interval_s=1
           --flow_manager.consistency_min_interval_s=1
           --flow_manager.ignore_cookies=0xfeed0000-0xfeedffff)

# links_json: GET links as "A B active enabled id" lines, A < B as Kytos orders them.
links() {
    curl -s "$API/links" | python3 -c '
import json, sys
for i, l in json.load(sys.stdin)["links"].items():
    print(l["endpoint_a"]["id"], l["endpoint_b"]["id"], l["active"], l["enabled"], i)'
}
active_links() { links | awk '$3 == "True"' | wc -l; }
link_state() {   # link_state IFACE_A IFACE_B -> True/False/absent
    links | awk -v a="$1" -v b="$2" '($1 == a && $2 == b) || ($1 == b && $2 == a) { print $3; f = 1 }
                                     END { if (!f) print "absent" }'
}
wait_link_state() {   # wait_link_state A B STATE SECS: prints the seconds it took
    local end=$((SECONDS + $4)) start s
    start=$(date +%s.%N)
    while :; do
        s=$(link_state "$1" "$2")
        [ "$s" = "$3" ] && { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f\n", a - b }'; return 0; }
        [ $SECONDS -ge $end ] && { echo "link $1 - $2 is $s after $4 s, expected $3" >&2; return 1; }
        sleep 0.1
    done
}
iface() { printf '00:00:00:00:00:00:%02x:%02x:%d' $(((0x1000 + $1) >> 8)) $(((0x1000 + $1) & 255)) "$2"; }

start_ofcd "$log" "${ofcd_args[@]}"
# The live event stream, link changes only, read from the first moment.
curl -sN "http://127.0.0.1:8181/api/v1/events?kinds=link" >"$work/events" &
sse_pid=$!
it_on_exit kill $sse_pid
curl -sN "http://127.0.0.1:8181/api/v1/events?kinds=flow" >"$work/flow_events" &
it_on_exit kill $!
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || fail "cannot create the bridges"

# Wiring: bridge i's port 1 to bridge i+1's port 2 (a ring), chords 1-11 and
# 6-16 on ports 3. One transaction: patch ports need both peers at once.
pairs=()
for i in $(seq 1 $N); do pairs+=("$i 1 $((i % N + 1)) 2"); done
pairs+=("1 3 11 3" "6 3 16 3")
args=()
for p in "${pairs[@]}"; do
    set -- $p
    args+=(-- add-port "br$1" "p$1-$3" -- set interface "p$1-$3" type=patch
           "options:peer=p$3-$1" "ofport_request=$2"
           -- add-port "br$3" "p$3-$1" -- set interface "p$3-$1" type=patch
           "options:peer=p$1-$3" "ofport_request=$4")
done
ovs_vsctl "${args[@]}" || fail "cannot wire the bridges"
want=${#pairs[@]}
wait_stat "$log" "switches_up" $N 60 || fail "the bridges did not establish"

# The LLDP flow, as of_lldp installs it (VLAN 3799, topology.lldp_vlan), on every bridge.
for i in 1 $N; do
    ovs_wait_flow "br$i" "priority=50000,dl_vlan=3799,dl_type=0x88cc actions=CONTROLLER" ||
        fail "br$i has no LLDP flow"
done
cookie=$(ovs_dump_flows br1 | grep -o 'cookie=0x[0-9a-f]*' | head -1)
[ "$cookie" = "cookie=0xab00000000001001" ] || fail "br1's LLDP flow has $cookie"
owner=$(curl -s "http://127.0.0.1:8181/api/kytos/flow_manager/v2/stored_flows?dpid=00:00:00:00:00:00:10:01" |
        python3 -c 'import json,sys; print([f["flow"].get("owner") for f in json.load(sys.stdin)["00:00:00:00:00:00:10:01"]])')
[ "$owner" = "['of_lldp']" ] || fail "br1's stored flows: owners $owner"
pass "LLDP flow stored (owner of_lldp) and installed with cookie 0xab00000000001001"

t0=$(date +%s.%N)
end=$((SECONDS + 4 * INTERVAL + 10))
while [ "$(active_links)" -lt "$want" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
took=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f\n", a - b }')
got=$(active_links)
[ "$got" -eq "$want" ] || { links; fail "$got of $want links up"; }
# The last flow went in before t0; two intervals from it is the promise.
awk -v t="$took" -v i=$INTERVAL 'BEGIN { exit !(t <= 2 * i + 0.5) }' ||
    fail "all $want links took $took s, more than 2 intervals"
pass "all $want links up, both ways, ${took} s after the LLDP flows were in"

# Kytos' link id: sha256 of the two interface ids, sorted, joined by ':'.
links | python3 -c '
import hashlib, sys
for line in sys.stdin:
    a, b, _, _, i = line.split()
    assert i == hashlib.sha256(":".join(sorted([a, b])).encode()).hexdigest(), line
' || fail "link ids differ from Kytos-ng LinkID"
pass "link ids are Kytos-ng's"
[ "$(curl -s "$API/interfaces" | python3 -c 'import json,sys; d=json.load(sys.stdin)["interfaces"]; print(d["'"$(iface 1 1)"'"]["link"] != "" and d["'"$(iface 1 1)"'"]["nni"])')" = True ] ||
    fail "interface $(iface 1 1) does not show its link"
pass "interfaces name their links (nni)"
# As Kytos shows a switch's connection: the switch's address:port (OVS
# reaches ofcd from the tap's kernel side).
c=$(curl -s "$API/switches" | python3 -c 'import json,sys; print(json.load(sys.stdin)["switches"][sys.argv[1]]["connection"])' "$(iface 1 0 | sed 's/:0$//')")
echo "$c" | grep -Eq '^10\.66\.0\.1:[0-9]+$' || fail "br1's connection is '$c'"
pass "switches show their connection ($c)"

# PORT_STATUS: deleting br16's patch port to br6 takes the link down at
# once (a port deleted), far sooner than link_timeout_s; re-added, it returns.
a=$(iface 6 3); b=$(iface 16 3)
ovs_vsctl del-port br16 p16-6 || fail "del-port"
dt=$(wait_link_state "$a" "$b" False $((TIMEOUT + 2))) || fail "deleting p16-6 left the link up"
awk -v t="$dt" -v to=$TIMEOUT 'BEGIN { exit !(t < to - 1) }' ||
    fail "link down took $dt s: PORT_STATUS was not acted on at once"
grep -q "link $a - $b down: a port went down" "$log" || fail "no log line naming both ends and the reason"
pass "patch port deleted: PORT_STATUS took link $a - $b down in $dt s (timeout $TIMEOUT s)"
ovs_vsctl add-port br16 p16-6 -- set interface p16-6 type=patch options:peer=p6-16 ofport_request=3 ||
    fail "add-port"
dt=$(wait_link_state "$a" "$b" True $((3 * INTERVAL + 3))) || fail "re-added p16-6: no link"
pass "patch port re-added: link back in $dt s"

# of_lldp: LLDP off on one end; the other end still probes, so the link is
# seen one way only and goes down once link_timeout_s passes without the
# other way.
a=$(iface 10 1); b=$(iface 11 2)
r=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"interfaces\": [\"$a\"]}" "$LLDP_API/interfaces/disable")
[ "$r" = '"All the requested interfaces have been disabled." 200' ] || fail "disable: $r"
curl -s "$LLDP_API/interfaces" | grep -q "\"$a\"" && fail "$a still listed with LLDP"
dt=$(wait_link_state "$a" "$b" False $((TIMEOUT + 2))) || fail "LLDP off on $a left the link up"
awk -v t="$dt" -v to=$TIMEOUT -v i=$INTERVAL 'BEGIN { exit !(t >= to - i - 0.5) }' ||
    fail "link down after $dt s: before the timeout, though frames still came one way"
pass "LLDP disabled on $a: link down in $dt s (the timeout: frames came one way only)"
r=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"interfaces\": [\"$a\", \"00:00:00:00:00:00:99:99:1\"]}" "$LLDP_API/interfaces/enable")
echo "$r" | grep -q "couldn't be found and activated" || fail "enable with an unknown id: $r"
echo "$r" | grep -q ' 400$' || fail "enable with an unknown id: $r"
dt=$(wait_link_state "$a" "$b" True $((3 * INTERVAL + 2))) || fail "LLDP back on $a: no link"
pass "LLDP enabled again (the unknown id answered 400): link back in $dt s"

# of_lldp liveness on both ends of br13 - br14: the pair comes up; br14
# drops the LLDP its port 2 receives (a flow above ofcd's, in a cookie range
# the consistency check is told to leave alone: a one-way failure), so that
# end goes down after the dead interval (5 x interval) while the other stays
# up and the pair is down; the flow removed, all up again.
a=$(iface 13 1); b=$(iface 14 2)
live_state() {   # live_state: "A-status B-status pair-status"
    curl -s "$LLDP_API/liveness/pair" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["pairs"]:
    print(p["interface_a"]["status"], p["interface_b"]["status"], p["status"], p["link_id"])'
}
wait_live() {    # wait_live "A B PAIR" SECS
    local end=$((SECONDS + $2)) s
    while s=$(live_state | head -1); [ "${s% *}" != "$1" ]; do
        [ $SECONDS -lt $end ] || { echo "liveness: '$s', expected '$1'" >&2; return 1; }
        sleep 0.2
    done
}
r=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"interfaces": []}' "$LLDP_API/liveness/enable")
echo "$r" | grep -q ' 400$' || fail "liveness/enable with no interfaces: $r"
r=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"interfaces\": [\"$a\", \"$b\"]}" "$LLDP_API/liveness/enable")
[ "$r" = "{} 200" ] || fail "liveness/enable: $r"
wait_live "up up up" 6 || fail "liveness pair $a - $b not up"
live_state | head -1 | grep -q "$(links | awk -v a="$a" '$1 == a { print $5 }')" ||
    fail "the liveness pair does not name the link's id"
curl -s "$LLDP_API/liveness/?interface_id=$a" | grep -q '"last_hello_at": *"20' ||
    fail "liveness of $a has no last_hello_at: $(curl -s "$LLDP_API/liveness/?interface_id=$a")"
pass "liveness: pair $a - $b up (and named by its link id)"
live_link() {    # live_link: "active status reasons liveness_status" of the pair's link
    local id
    id=$(live_state | head -1 | awk '{ print $4 }')
    curl -s "$API/links" | python3 -c '
import json, sys
l = json.load(sys.stdin)["links"][sys.argv[1]]
print(l["active"], l["status"], ",".join(l["status_reason"]) or "-",
      l["metadata"].get("liveness_status", "-"))' "$id"
}
[ "$(live_link)" = "True UP - up" ] || fail "the pair's link: $(live_link), expected True UP - up"
ovs-ofctl -O OpenFlow13 add-flow "unix:$OVS_DIR/br14.mgmt" \
    "cookie=0xfeed0001,priority=60000,in_port=2,dl_type=0x88cc,actions=drop" || fail "add-flow drop"
wait_live "up down down" 10 || fail "a one-way failure was not seen"
# Kytos' shape: the link is still active, DOWN for "liveness" (the link
# timeout, shorter than liveness' dead interval, does not judge it).
[ "$(live_link)" = "True DOWN liveness down" ] ||
    fail "the pair's link: $(live_link), expected True DOWN liveness down"
pass "one-way failure: $b hears nothing and is down, $a still up, the pair down; its link DOWN for liveness"
ovs-ofctl -O OpenFlow13 del-flows --strict "unix:$OVS_DIR/br14.mgmt" \
    "priority=60000,in_port=2,dl_type=0x88cc" || fail "del-flows"
wait_live "up up up" 8 || fail "liveness did not recover"
[ "$(live_link)" = "True UP - up" ] || fail "the pair's link: $(live_link) after recovery"
pass "liveness recovered"

# The consistency check has run many times by now (1 s): no LLDP flow was alien.
alien=$(rest_metric 'ofcd_flow_manager_total{what="alien_deleted"}')
[ "$alien" = 0 ] || fail "the consistency check deleted $alien flows"
ovs_wait_flow br1 "priority=50000,dl_vlan=3799,dl_type=0x88cc" || fail "br1 lost its LLDP flow"
pass "consistency check: LLDP flows kept, 0 aliens"

# Flow events: br5 expires a flow of its own (hard_timeout, send_flow_rem; in
# the cookie range the check leaves alone) and tells ofcd → flow.removed; a
# flow posted and deleted through flow_manager v2 on br2 → flow.deleted.
FM=http://127.0.0.1:8181/api/kytos/flow_manager/v2
dp() { iface "$1" 0 | sed 's/:0$//'; }
ovs-ofctl -O OpenFlow13 add-flow "unix:$OVS_DIR/br5.mgmt" \
    "cookie=0xfeed0002,priority=10,hard_timeout=1,send_flow_rem,in_port=9,actions=drop" ||
    fail "add-flow with send_flow_rem"
r=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 11, "match": {"in_port": 9}, "actions": []}]}' "$FM/flows/$(dp 2)")
[ "$r" = 202 ] || fail "POST a flow to br2: $r"
ovs_wait_flow br2 "priority=11,in_port=9" || fail "br2 did not get the posted flow"
r=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 11, "match": {"in_port": 9}}]}' "$FM/flows/$(dp 2)")
[ "$r" = 202 ] || fail "DELETE br2's flow: $r"
end=$((SECONDS + 10))
until python3 - "$work/flow_events" "$(dp 5)" "$(dp 2)" <<'PY'
import json, sys
kind, got = None, set()
for line in open(sys.argv[1]):
    if line.startswith("event: "):
        kind = line[7:].strip()
    elif line.startswith("data: ") and line.endswith("\n"):
        d = json.loads(line[6:])
        if (kind == "flow.removed" and d["dpid"] == sys.argv[2] and d["cookie"] == "0xfeed0002"
                and d["reason"] == "hard_timeout" and d["stored"] is False and d["priority"] == 10):
            got.add("removed")
        if kind == "flow.deleted" and d["dpid"] == sys.argv[3] and d["count"] == 1:
            got.add("deleted")
sys.exit(0 if got == {"removed", "deleted"} else 1)
PY
do
    [ $SECONDS -lt $end ] || fail "no flow.removed (br5, hard_timeout) and flow.deleted (br2) events: $(grep -A1 -E 'flow.(removed|deleted)' "$work/flow_events")"
    sleep 0.2
done
pass "event stream: flow.removed from br5's own expiry, flow.deleted for the API's delete on br2"

# The event stream told every change above, link ids as GET links has them.
python3 - "$work/events" "$(links | awk '{ print $5 }' | tr '\n' ' ')" <<'PY' || fail "event stream incomplete"
import json, sys
ups, downs, kinds = set(), set(), set()
kind = None
for line in open(sys.argv[1]):
    if line.startswith("event: "):
        kind = line[7:].strip()
        kinds.add(kind)
    elif line.startswith("data: "):
        d = json.loads(line[6:])
        (ups if kind == "link.up" else downs).add(d["id"])
known = set(sys.argv[2].split())
missing = known - ups
assert not missing, f"no link.up for {missing}"
assert len(downs) >= 2, f"link.down for {len(downs)} links, expected the 2 taken down"
assert kinds <= {"link.up", "link.down"}, f"kinds beyond the filter: {kinds}"
print(f"events: link.up for all {len(known)} links, link.down for {len(downs)}")
PY
pass "event stream (kinds=link): every link.up and link.down, nothing else"
n=$(grep -A1 '^event: flow.installed' "$work/flow_events" | grep '^data: ' | python3 -c '
import json, sys
print(len({json.loads(l[6:])["dpid"] for l in sys.stdin}))')
[ "$n" = $N ] || fail "flow.installed events for $n of $N bridges (their LLDP flows)"
grep '^event: ' "$work/flow_events" | sort -u |
    grep -qvE '^event: flow\.(installed|removed|deleted)$' && fail "kinds=flow let other kinds through"
pass "event stream (kinds=flow): the LLDP flow of each of the $N bridges installed"

# What an operator set survives a restart (kept in the flow store's
# database): link metadata, a disabled link, an interface's LLDP off, a
# disabled switch (no LLDP flow comes back to it), liveness on.
lid=$(links | awk -v a="$(iface 1 1)" '$1 == a { print $5 }')
off=$(links | awk -v a="$(iface 2 1)" '$1 == a { print $5 }')
post() { curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$@"; }
r=$(post -d '{"owner": "ring", "weight": 7}' "$API/links/$lid/metadata")
[ "$r" = 201 ] || fail "link metadata POST: $r"
r=$(post "$API/links/$off/disable"); [ "$r" = 201 ] || fail "link disable: $r"
r=$(post -d "{\"interfaces\": [\"$(iface 4 1)\"]}" "$LLDP_API/interfaces/disable")
[ "$r" = 200 ] || fail "LLDP disable on $(iface 4 1): $r"
r=$(post "$API/switches/$(dp 19)/disable"); [ "$r" = 201 ] || fail "switch disable: $r"
ovs_wait_flow_gone() {   # the flow leaves br$1 within 10 s
    local end=$((SECONDS + 10))
    while ovs_dump_flows "br$1" | grep -q "$2"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.2
    done
}
ovs_wait_flow_gone 19 "dl_type=0x88cc" || fail "br19 disabled kept its LLDP flow"
stop_ofcd
# While ofcd is away the chords are re-cabled: 1:3 - 16:3 and 6:3 - 11:3.
ovs_vsctl -- set interface p1-11 options:peer=p16-6 -- set interface p16-6 options:peer=p1-11 \
    -- set interface p6-16 options:peer=p11-1 -- set interface p11-1 options:peer=p6-16 ||
    fail "cannot re-cable the chords"
# Restarted untagged (topology.lldp_vlan = 0): each switch's LLDP flow of
# VLAN 3799 is replaced by the untagged one, not kept beside it.
start_ofcd "$log.2" "${ofcd_args[@]}" --topology.lldp_vlan=0 \
    --topology.lldp_loop_actions=log,disable
log=$log.2
# Every link was kept (as Kytos keeps them): the chords' old links are
# shown DOWN for mismatched_link once LLDP finds their ends elsewhere.
link_is() {   # link_is A B: "active status reasons" of the link A - B
    curl -s "$API/links" | python3 -c '
import json, sys
for l in json.load(sys.stdin)["links"].values():
    if {l["endpoint_a"]["id"], l["endpoint_b"]["id"]} == set(sys.argv[1:3]):
        print(l["active"], l["status"], ",".join(l["status_reason"]) or "-")' "$1" "$2"
}
wait_link_state "$(iface 1 3)" "$(iface 16 3)" True 30 >/dev/null || fail "the re-cabled chord 1 - 16 is not up"
wait_link_state "$(iface 6 3)" "$(iface 11 3)" True 30 >/dev/null || fail "the re-cabled chord 6 - 11 is not up"
[ "$(link_is "$(iface 1 3)" "$(iface 11 3)")" = "False DOWN deactivated,mismatched_link" ] ||
    fail "old chord 1 - 11: $(link_is "$(iface 1 3)" "$(iface 11 3)"), expected mismatched"
[ "$(link_is "$(iface 6 3)" "$(iface 16 3)")" = "False DOWN deactivated,mismatched_link" ] ||
    fail "old chord 6 - 16: $(link_is "$(iface 6 3)" "$(iface 16 3)"), expected mismatched"
pass "links kept over a restart; the re-cabled chords' old links DOWN for mismatched_link"
wait_stat "$log" "switches_up" $N 60 || fail "the bridges did not come back"
end=$((SECONDS + 30))
until curl -s "$API/links/$lid/metadata" | grep -q '"weight": *7'; do
    [ $SECONDS -lt $end ] || fail "link $lid metadata lost over a restart: $(curl -s "$API/links/$lid/metadata")"
    sleep 0.2
done
pass "link metadata kept over a restart"
curl -s "$API/links" | python3 -c '
import json, sys
l = json.load(sys.stdin)["links"][sys.argv[1]]
assert l["enabled"] is False, l' "$off" || fail "link $off enabled again after the restart"
curl -s "$LLDP_API/interfaces" | grep -q "\"$(iface 4 1)\"" && fail "$(iface 4 1) has LLDP again"
curl -s "$API/switches" | python3 -c '
import json, sys
s = json.load(sys.stdin)["switches"][sys.argv[1]]
assert s["enabled"] is False, s["enabled"]' "$(dp 19)" || fail "br19 enabled again after the restart"
r=$(curl -s "$LLDP_API/liveness/?interface_id=$(iface 13 1)")
echo "$r" | grep -q '"status"' || fail "liveness of $(iface 13 1) lost over a restart: $r"
ovs_wait_flow br18 "priority=50000,dl_type=0x88cc actions=CONTROLLER" ||
    fail "br18 has no untagged LLDP flow after the restart"
ovs_wait_flow_gone 18 "dl_vlan=3799" || fail "br18 kept its LLDP flow of VLAN 3799"
n=$(curl -s "http://127.0.0.1:8181/api/kytos/flow_manager/v2/stored_flows?dpid=$(dp 18)&state=installed" |
    python3 -c 'import json, sys; print(sum(len(v) for v in json.load(sys.stdin).values()))')
[ "$n" = 1 ] || fail "br18 has $n installed stored flows, expected its one LLDP flow"
ovs_dump_flows br19 | grep -q "dl_type=0x88cc" && fail "br19 (disabled) got its LLDP flow back"
pass "kept over a restart: a disabled link, LLDP off on an interface, a disabled switch, liveness; the LLDP flow untagged once topology.lldp_vlan = 0"
# DELETE links/{id}: refused for an enabled link (409), done for the disabled
# one, which LLDP then finds again, enabled, as a new link.
r=$(curl -s -w ' %{http_code}' -X DELETE "$API/links/$lid")
[ "$r" = '{"description": "Link is not disabled.", "code": 409} 409' ] ||
    echo "$r" | grep -q ' 409$' || fail "DELETE of an enabled link: $r"
r=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$API/links/$off"); [ "$r" = 200 ] || fail "DELETE link: $r"
end=$((SECONDS + 10))
until curl -s "$API/links" | python3 -c '
import json, sys
l = json.load(sys.stdin)["links"].get(sys.argv[1])
sys.exit(0 if l and l["enabled"] and l["active"] else 1)' "$off"; do
    [ $SECONDS -lt $end ] || fail "the deleted link was not found again, enabled"
    sleep 0.2
done
pass "DELETE links/{id}: 409 for an enabled link; the disabled one deleted, then rediscovered enabled"
lldp=$(rest_metric 'ofcd_topology_lldp_total{what="lldp_sent"}')
[ "$lldp" -gt 0 ] || fail "no LLDP sent after the restart"

# A loop (br20's ports 7 and 8 patched to each other), with
# topology.lldp_loop_actions = log,disable since the restart: port 7 (the
# lower) marked looped and disabled; the loop gone, enabled again.
iface_field() {   # iface_field ID: "enabled looped-port-numbers"
    curl -s "$API/interfaces" | python3 -c '
import json, sys
i = json.load(sys.stdin)["interfaces"].get(sys.argv[1])
print("absent" if i is None else "%s %s" % (i["enabled"],
      i["metadata"].get("looped", {}).get("port_numbers", "-")))' "$1"
}
wait_iface() {    # wait_iface ID WANT SECS
    local end=$((SECONDS + $3))
    until [ "$(iface_field "$1")" = "$2" ]; do
        [ $SECONDS -lt $end ] || { echo "$1: $(iface_field "$1"), expected $2" >&2; return 1; }
        sleep 0.2
    done
}
ovs_vsctl -- add-port br20 p20-7 -- set interface p20-7 type=patch options:peer=p20-8 \
    ofport_request=7 -- add-port br20 p20-8 -- set interface p20-8 type=patch \
    options:peer=p20-7 ofport_request=8 || fail "cannot make br20's loop"
wait_iface "$(iface 20 7)" "False [7, 8]" 15 || fail "br20's loop not marked on port 7 and disabled"
[ "$(iface_field "$(iface 20 8)")" = "True -" ] || fail "port 8: $(iface_field "$(iface 20 8)")"
grep -q "LLDP loop detected on switch $(dp 20): port_numbers \[7, 8\]" "$log" ||
    fail "the loop was not logged"
ovs_vsctl -- del-port br20 p20-8 || fail "cannot undo br20's loop"
wait_iface "$(iface 20 7)" "True -" 15 || fail "port 7 not enabled again once the loop stopped"
pass "loop on br20 7 - 8: marked looped, logged, port 7 disabled; enabled again when it stopped"
stop_ofcd
echo "ovs_topology: all checks passed"
