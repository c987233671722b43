#!/usr/bin/env bash
# Kytos-ng's mef_eline v2 on ofcd, against Open vSwitch bridges in a line
# (br1 - br2 - br3, patch ports, links found by ofcd's LLDP) with hosts in
# namespaces. A host's VLAN is put on outside it (this kernel has no 802.1Q
# devices): a standalone bridge of its own with an access port tag=VID,
# patched to the ofcd bridge as a trunk.
#  1. an EPL EVC br1:1 - br3:1 over a dynamic path: h1 pings h3 across br2;
#     the flows on the bridges are mef_eline's (cookie 0xaa.., owner
#     mef_eline, priorities 10000/20000, an 802.1ad S-tag on the path);
#  2. an intra-switch EVC br1:5 - br1:6: h5 pings h6;
#  3. VLAN 100 on br1:7 to VLAN 200 on br3:7 (the customer tag swapped for
#     the S-VLAN and back): h7 pings h8; VLAN 300 on both ends of br1:8 -
#     br3:8 (an S-tag pushed and popped): h9 pings h10;
#  4. the API as Kytos answers: GET evc/ and evc/{id}, a tag in use (400),
#     a port without tag taken twice (409), bad bodies (400 naming the
#     field), an unknown id (404);
#  5. ofcd restarted: the EVCs are still there and still carry traffic;
#  6. DELETE: the EVC's flows leave every bridge, it is archived (GET
#     ?archived=true), its ping stops;
#  7. failover: a chord br1 - br3 added, an EVC laid over it with a backup
#     through br2 behind a fast-failover group at each UNI's switch
#     (dump-groups); the chord's port deleted: the EVC is laid again through
#     br2, make before break, its old flows and groups gone, and h11's ping
#     to h12 goes on (the packets lost are counted, the time to move
#     logged); the chord back, the EVC goes back over it by itself,
#     protected again;
#  8. links down that no PORT_STATUS tells: the chord disabled over REST,
#     then silent one way (br1 set no-receive on it: LLDP's liveness ends
#     the link): the EVC moves through br2 and back each time; an EVC with
#     a primary_path and a backup_path takes the backup when the chord is
#     cut and its primary again when the chord is back; pathfinder's
#     constraints (primary_constraints, secondary_constraints) steer its
#     path and its backup off a link;
#  9. PATCH evc/{id}: a new name, disabled and enabled, a new primary_path,
#     and what Kytos refuses (an attribute it cannot change, a tag in use,
#     a bad value, bad JSON, an unknown id), nothing changed by a refusal;
# 10. metadata: per EVC and in bulk, the list filtered by it;
# 11. the interfaces' tag pools (topology v3 tag_ranges): the EVCs' UNI
#     tags and S-VLANs out of available_tags, tag_ranges leaving one out
#     refused, UNI tags outside the pool refused; an untagged UNI out of
#     special_available_tags, special_tags leaving it out refused; a UNI on
#     a port between switches and the S-VLANs carried there kept apart;
# 12. a restart with one bridge kept away: no EVC moved or taken down while
#     LLDP finds their links again nor for the bridge's absence; a PATCH
#     that left an EVC without a path is kept over the restart.
#
# usage: ovs_eline.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup ovs-eline
API=http://127.0.0.1:8181
EL=$API/api/kytos/mef_eline/v2
ofcd_args=(--config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0
           --topology.lldp_interval_s=1 --topology.link_timeout_s=3)
dpid() { printf '00:00:00:00:00:00:%02x:%02x' $(((0x1000 + $1) >> 8)) $(((0x1000 + $1) & 255)); }

# host N BRIDGE PORT NET [VID]: namespace ofcd-eN with 10.NET.0.N/24 on
# eth0, its veth on BRIDGE as OpenFlow port PORT; with VID, through a
# standalone bridge tgN that tags it (access port tag=VID, trunk patched to
# BRIDGE's PORT).
host() {
    local n=$1 br=$2 port=$3 net=$4 vid=${5:-}
    it_on_exit ip netns del ofcd-e$n
    it_on_exit ip link del ofcd-ev$n
    ip netns add ofcd-e$n || fail "cannot create namespace ofcd-e$n"
    ip link add ofcd-ev$n type veth peer name eth0 netns ofcd-e$n || fail "cannot create a veth"
    ip link set ofcd-ev$n up
    ip -n ofcd-e$n addr add 10.$net.0.$n/24 dev eth0
    ip -n ofcd-e$n link set eth0 up
    if [ -z "$vid" ]; then
        ovs_vsctl add-port "$br" ofcd-ev$n -- set interface ofcd-ev$n ofport_request=$port ||
            fail "cannot add h$n's port"
        return
    fi
    ovs_vsctl add-br tg$n -- set bridge tg$n datapath_type=netdev fail-mode=standalone \
        -- add-port tg$n ofcd-ev$n tag=$vid \
        -- add-port tg$n tg$n-up -- set interface tg$n-up type=patch options:peer=$br-tg$n \
        -- add-port "$br" $br-tg$n -- set interface $br-tg$n type=patch options:peer=tg$n-up \
           ofport_request=$port || fail "cannot make h$n's tagging bridge"
}

# ping_ok FROM_N TO_IP: at least one of 5 answered (the first may wait for ARP).
ping_ok() { ip netns exec ofcd-e$1 ping -c 5 -i 0.2 -W 1 "$2" 2>&1 | grep -qE ' [1-5] received'; }

# post BODY: the status; the answer in $work/answer.
post() {
    curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "$1" "$EL/evc/"
}
uni() {
    local tag=
    [ -n "${3:-}" ] && tag=$(printf ', "tag": {"tag_type": "vlan", "value": %s}' "$3")
    printf '{"interface_id": "%s:%s"%s}' "$(dpid "$1")" "$2" "$tag"
}
evc() { printf '{"name": "%s", "uni_a": %s, "uni_z": %s, "enabled": true, "dynamic_backup_path": true}' "$1" "$2" "$3"; }

start_ofcd "$work/ofcd.log" "${ofcd_args[@]}"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 3 tcp:10.66.0.2:6653 1000 || fail "cannot create bridges"
ovs_vsctl -- add-port br1 p1-2 -- set interface p1-2 type=patch options:peer=p2-1 ofport_request=2 \
          -- add-port br2 p2-1 -- set interface p2-1 type=patch options:peer=p1-2 ofport_request=2 \
          -- add-port br2 p2-3 -- set interface p2-3 type=patch options:peer=p3-2 ofport_request=3 \
          -- add-port br3 p3-2 -- set interface p3-2 type=patch options:peer=p2-3 ofport_request=2 ||
    fail "cannot patch the bridges"
host 1 br1 1 89
host 3 br3 1 89
host 5 br1 5 90
host 6 br1 6 90
host 7 br1 7 91 100
host 8 br3 7 91 200
host 9 br1 8 92 300
host 10 br3 8 92 300
host 11 br1 9 93
host 12 br3 9 93
host 13 br1 10 94
host 14 br3 10 94
wait_stat "$work/ofcd.log" "switches_up" 3 60 || fail "the bridges did not establish"
for _ in $(seq 150); do
    [ "$(curl -s "$API/api/kytos/topology/v3/links" | jq '[.links[] | select(.status == "UP")] | length')" = 2 ] && break
    sleep 0.2
done
[ "$(curl -s "$API/api/kytos/topology/v3/links" | jq '[.links[] | select(.status == "UP")] | length')" = 2 ] ||
    fail "the two links were not found"
ping_ok 1 10.89.0.3 && fail "h1 reaches h3 before any EVC"

# ---- 1. EPL across br2 ---------------------------------------------------------------------
c=$(post "$(evc epl "$(uni 1 1)" "$(uni 3 1)")")
[ "$c" = 201 ] || fail "POST EPL: $c $(cat "$work/answer")"
[ "$(jq -r .deployed "$work/answer")" = true ] || fail "EPL not deployed: $(cat "$work/answer")"
EPL=$(jq -r .circuit_id "$work/answer")
[ ${#EPL} = 14 ] || fail "circuit_id $EPL is not 14 hex digits"
ping_ok 1 10.89.0.3 || fail "h1 cannot ping h3 over the EPL"
ck=$(printf '0xaa%s' "$EPL")
ovs_wait_flow br1 "cookie=$ck, priority=10000,in_port=1 actions=push_vlan:0x88a8,set_field:" ||
    fail "br1: no EPL push flow as mef_eline lays it"
ovs_wait_flow br2 "cookie=$ck, priority=20000,in_port=2,dl_vlan=" || fail "br2: no S-VLAN flow"
ovs_wait_flow br3 "cookie=$ck, priority=20000,in_port=2,dl_vlan=" || fail "br3: no pop flow"
ovs_dump_flows br3 | grep "cookie=$ck, priority=20000,in_port=2" | grep -q 'actions=pop_vlan,output:1' ||
    fail "br3: the pop flow does not pop: $(ovs_dump_flows br3 | grep "$ck")"
# (The only EVC yet: every mef_eline flow stored is its.)
installed() {
    curl -s "$API/api/kytos/flow_manager/v2/stored_flows" |
        jq '[.[] | .[] | select(.flow.owner == "mef_eline" and .state == "installed")] | length'
}
for _ in $(seq 50); do [ "$(installed)" = 6 ] && break; sleep 0.2; done
[ "$(installed)" = 6 ] || fail "the EPL's 6 flows are not stored as mef_eline's, installed: $(installed)"
pass "EPL $EPL: h1 pings h3 across br2; push 802.1ad, swap, pop as mef_eline lays them (6 flows, owner mef_eline)"

# ---- 2. intra-switch -------------------------------------------------------------------------
c=$(post "$(evc intra "$(uni 1 5)" "$(uni 1 6)")")
[ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] || fail "POST intra: $c $(cat "$work/answer")"
ping_ok 5 10.90.0.6 || fail "h5 cannot ping h6 over the intra-switch EVC"
pass "intra-switch EVC: h5 pings h6"

# ---- 3. VLANs ----------------------------------------------------------------------------------
c=$(post "$(evc v100-200 "$(uni 1 7 100)" "$(uni 3 7 200)")")
[ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] || fail "POST 100-200: $c $(cat "$work/answer")"
V12=$(jq -r .circuit_id "$work/answer")
ping_ok 7 10.91.0.8 || fail "h7 (VLAN 100) cannot ping h8 (VLAN 200)"
ovs_dump_flows br1 | grep "cookie=0xaa$V12, priority=20000,in_port=7,dl_vlan=100 " | grep -qE 'actions=set_field:[0-9]+->vlan_vid,output:2' ||
    fail "br1: VLAN 100 not swapped for the S-VLAN: $(ovs_dump_flows br1 | grep "0xaa$V12")"
c=$(post "$(evc v300 "$(uni 1 8 300)" "$(uni 3 8 300)")")
[ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] || fail "POST 300-300: $c $(cat "$work/answer")"
V3=$(jq -r .circuit_id "$work/answer")
ping_ok 9 10.92.0.10 || fail "h9 (VLAN 300) cannot ping h10 (VLAN 300)"
ovs_dump_flows br1 | grep "cookie=0xaa$V3, priority=20000,in_port=8,dl_vlan=300 " | grep -q 'actions=push_vlan:0x88a8,set_field:' ||
    fail "br1: no S-tag pushed over VLAN 300: $(ovs_dump_flows br1 | grep "0xaa$V3")"
svlans=$(curl -s "$EL/evc/" | jq -c '[.[] | select(.uni_a.interface_id | endswith(":7") or endswith(":8")) | .current_path[0].metadata.s_vlan.value] | sort')
[ "$(jq 'unique | length' <<<"$svlans")" = 2 ] || fail "two EVCs on one link share an S-VLAN: $svlans"
pass "VLAN 100 to 200 (tag swapped) and 300 to 300 (S-tag pushed) carry pings; S-VLANs $svlans"

# ---- 4. the API ----------------------------------------------------------------------------------
[ "$(curl -s "$EL/evc/" | jq 'length')" = 4 ] || fail "GET evc/ does not list the 4 EVCs"
one=$(curl -s "$EL/evc/$EPL")
[ "$(jq -r '[.name, .active, .enabled, .archived, .uni_a.interface_id, (.current_path | length)] | @csv' <<<"$one")" = \
  "\"epl\",true,true,false,\"$(dpid 1):1\",2" ] || fail "GET evc/$EPL: $one"
c=$(post "$(evc dup "$(uni 1 7 100)" "$(uni 3 7 201)")")
[ "$c" = 400 ] && grep -q 'Tag 100 is not available' "$work/answer" || fail "a tag in use: $c $(cat "$work/answer")"
c=$(post "$(evc dup2 "$(uni 1 1)" "$(uni 2 9)")")
[ "$c" = 409 ] || fail "a port without tag taken twice: $c $(cat "$work/answer")"
c=$(post '{"name": "x", "uni_a": {"interface_id": "00:00:00:00:00:00:10:01:1"}}')
[ "$c" = 400 ] && grep -q "'uni_z' is a required property" "$work/answer" || fail "no uni_z: $c $(cat "$work/answer")"
c=$(post "$(printf '{"name": "x", "uni_a": %s, "uni_z": %s}' "$(uni 1 9)" "$(uni 3 9)")")
[ "$c" = 400 ] && grep -q 'must have a primary path or allow dynamic paths' "$work/answer" ||
    fail "no path allowed: $c $(cat "$work/answer")"
c=$(curl -s -o "$work/answer" -w '%{http_code}' "$EL/evc/0123456789abcd")
[ "$c" = 404 ] && grep -q 'circuit_id 0123456789abcd not found' "$work/answer" || fail "unknown id: $c"
[ "$(curl -s "$EL/evc/" | jq 'length')" = 4 ] || fail "refused requests made EVCs"
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X PATCH "$EL/evc/$V12/redeploy")
[ "$c" = 202 ] && [ "$(jq -r .response "$work/answer")" = "Circuit $V12 redeploy received." ] ||
    fail "redeploy: $c $(cat "$work/answer")"
ping_ok 7 10.91.0.8 || fail "h7 cannot ping h8 after the redeploy"
c=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH "$EL/evc/0123456789abcd/redeploy")
[ "$c" = 404 ] || fail "redeploy of an unknown EVC: $c"
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X PATCH "$EL/evc/$V12/redeploy?try_avoid_same_s_vlan=maybe")
[ "$c" = 400 ] || fail "redeploy with a bad parameter: $c $(cat "$work/answer")"
pass "GET evc/ and evc/{id}; 400 tag in use, 409 port taken, 400 naming the field, 404; redeploy 202, 404, 400"

# ---- 5. a restart keeps them -----------------------------------------------------------------
stop_ofcd
start_ofcd "$work/ofcd2.log" "${ofcd_args[@]}"
wait_stat "$work/ofcd2.log" "switches_up" 3 60 || fail "the bridges did not come back"
[ "$(curl -s "$EL/evc/" | jq '[.[] | select(.active)] | length')" = 4 ] || fail "the EVCs were not kept active over a restart"
ping_ok 7 10.91.0.8 || fail "h7 cannot ping h8 after the restart"
pass "after ofcd's restart: 4 EVCs active, VLAN 100 - 200 still carries pings"

# ---- 6. DELETE ---------------------------------------------------------------------------------
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X DELETE "$EL/evc/$EPL")
[ "$c" = 200 ] && [ "$(jq -r .response "$work/answer")" = "Circuit $EPL removed" ] || fail "DELETE: $c $(cat "$work/answer")"
for b in br1 br2 br3; do ovs_wait_flow $b "cookie=0xaa$EPL," gone || fail "$b keeps the EPL's flows"; done
ping_ok 1 10.89.0.3 && fail "h1 still reaches h3 after the DELETE"
[ "$(curl -s "$EL/evc/?archived=true" | jq -r "keys == [\"$EPL\"] and .[\"$EPL\"].archived")" = true ] ||
    fail "the deleted EVC is not listed as archived"
[ "$(curl -s "$EL/evc/" | jq 'length')" = 3 ] || fail "the deleted EVC is still listed as live"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$EL/evc/$EPL")
[ "$c" = 404 ] || fail "a second DELETE: $c"
# Its port is free again.
c=$(post "$(evc epl2 "$(uni 1 1)" "$(uni 3 1)")")
[ "$c" = 201 ] && ping_ok 1 10.89.0.3 || fail "the freed ports cannot take a new EPL: $c $(cat "$work/answer")"
pass "DELETE: flows gone from br1, br2, br3, the EVC archived, its ports free again"

# ---- 7. failover ---------------------------------------------------------------------------
ovs_vsctl -- add-port br1 p1-3 -- set interface p1-3 type=patch options:peer=p3-1 ofport_request=3 \
          -- add-port br3 p3-1 -- set interface p3-1 type=patch options:peer=p1-3 ofport_request=3 ||
    fail "cannot add the chord br1 - br3"
links_up() { curl -s "$API/api/kytos/topology/v3/links" | jq '[.links[] | select(.status == "UP")] | length'; }
for _ in $(seq 150); do [ "$(links_up)" = 3 ] && break; sleep 0.2; done
[ "$(links_up)" = 3 ] || fail "the chord was not found: $(links_up) links up"
c=$(post "$(evc protect "$(uni 1 9)" "$(uni 3 9)")")
[ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] || fail "POST protect: $c $(cat "$work/answer")"
PR=$(jq -r .circuit_id "$work/answer")
[ "$(curl -s "$EL/evc/$PR" | jq '[(.current_path | length), (.failover_path | length)] | @csv')" = '"1,2"' ] ||
    fail "not laid over the chord with a backup through br2: $(curl -s "$EL/evc/$PR" | jq -c '[.current_path, .failover_path]')"
# Protected by the switches themselves: a fast-failover group at each UNI's
# switch, the chord watched first, the way through br2 second.
for b in br1 br3; do
    ovs-ofctl -O OpenFlow13 dump-groups "unix:$OVS_DIR/$b.mgmt" | grep -q 'type=ff,bucket=watch_port:3,actions=set_field:[0-9]*->vlan_vid,output:3,bucket=watch_port:2,actions=set_field:[0-9]*->vlan_vid,output:2' ||
        fail "$b: no fast-failover group: $(ovs-ofctl -O OpenFlow13 dump-groups "unix:$OVS_DIR/$b.mgmt")"
done
ovs_wait_flow br1 "cookie=0xaa$PR, priority=10000,in_port=9 actions=push_vlan:0x88a8,group:" ||
    fail "br1: the push flow does not go to the group"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 over the chord"
ip netns exec ofcd-e11 ping -c 300 -i 0.01 -W 1 10.93.0.12 >"$work/ping" 2>&1 &
pp=$!
sleep 1
ovs_vsctl del-port br1 p1-3 || fail "cannot cut the chord"
wait "$pp"
moved=$(grep -o "EVC $PR (protect): port [0-9a-f]*:3 down: laid again over 2 links in [0-9]* ms" "$work/ofcd2.log")
[ -n "$moved" ] || fail "the EVC was not laid again: $(grep "$PR" "$work/ofcd2.log" | tail -3)"
wait_for_line "$work/ofcd2.log" "EVC $PR \\(protect\\): port [0-9a-f]*:3 down: its traffic on its backup \\(fast-failover\\)" 10 ||
    fail "no failover told for a protected EVC whose path broke"
[ "$(curl -s "$EL/evc/$PR" | jq '[.active, (.current_path | length)] | @csv')" = '"true,2"' ] ||
    fail "not active over br2: $(curl -s "$EL/evc/$PR" | jq -c '.current_path')"
got=$(grep -o '[0-9]* received' "$work/ping" | cut -d' ' -f1)
[ "${got:-0}" -ge 200 ] || fail "h11's ping did not go on after the cut: $(tail -3 "$work/ping")"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 after the failover"
# Make before break: the old path's flows (on the chord's ports 3) are gone.
for b in br1 br3; do
    ovs_wait_flow $b "cookie=0xaa$PR, priority=20000,in_port=3," gone ||
        fail "$b keeps the old path's flow"
done
[ "$(curl -s "$EL/evc/$PR" | jq '.failover_path | length')" = 0 ] || fail "a backup where none is left"
ovs-ofctl -O OpenFlow13 dump-groups unix:"$OVS_DIR/br1.mgmt" | grep -q 'type=ff' &&
    fail "br1 keeps the fast-failover group of a path that is gone"
pass "failover (protected by fast-failover groups at both UNIs): the chord cut, the EVC laid again through br2 (${moved##* in }), the old path's flows and group removed; ping lost $((300 - got)) of 300 at 10 ms"

# The chord back: nobody asks, the EVC goes back over it, protected again
# (it went unprotected for want of a second way, and one is there).
ovs_vsctl -- add-port br1 p1-3 -- set interface p1-3 type=patch options:peer=p3-1 ofport_request=3 ||
    fail "cannot put the chord back"
shape() { curl -s "$EL/evc/$1" | jq -r '[.active, (.current_path | length), (.failover_path | length)] | @csv'; }
wait_shape() { for _ in $(seq 100); do [ "$(shape "$1")" = "$2" ] && return 0; sleep 0.2; done; return 1; }
wait_shape "$PR" 'true,1,2' || fail "not back on the chord with a backup by itself: $(shape "$PR")"
wait_for_line "$work/ofcd2.log" "EVC $PR \\(protect\\): a backup can protect it again: laid again over 1 links" 10 ||
    fail "no log of why it moved back: $(grep "$PR" "$work/ofcd2.log" | tail -2)"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 back over the chord"
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X PATCH "$EL/evc/$PR/redeploy")
[ "$c" = 202 ] && [ "$(shape "$PR")" = 'true,1,2' ] || fail "redeploy over the chord: $c $(shape "$PR")"
pass "the chord back: the EVC laid over it again by itself, protected again; a redeploy keeps it so"

# ---- 8. links down that no PORT_STATUS tells -------------------------------------------------
# A link disabled over REST (topology v3): the EVC leaves it, and comes
# back once it is enabled.
chord=$(curl -s "$API/api/kytos/topology/v3/links" |
        jq -r '.links[] | select(.endpoint_a.port_number == 3 and .endpoint_b.port_number == 3) | .id')
[ -n "$chord" ] || fail "the chord's link id is not listed"
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X POST "$API/api/kytos/topology/v3/links/$chord/disable")
[ "$c" = 201 ] || fail "link disable: $c $(cat "$work/answer")"
wait_shape "$PR" 'true,2,0' || fail "the EVC stayed on the disabled chord: $(shape "$PR")"
wait_for_line "$work/ofcd2.log" "EVC $PR \\(protect\\): a link of its path is down: laid again over 2 links" 10 ||
    fail "no log of the move off the disabled link"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 through br2"
curl -s -o /dev/null -X POST "$API/api/kytos/topology/v3/links/$chord/enable"
wait_shape "$PR" 'true,1,2' || fail "not back on the enabled chord: $(shape "$PR")"
pass "a link disabled over REST: the EVC moved off it through br2, and back once enabled"

# The chord silent one way (br1 receives nothing on it: no PORT_STATUS
# says so, LLDP's liveness does): the EVC moves through br2.
ovs-ofctl -O OpenFlow13 mod-port "unix:$OVS_DIR/br1.mgmt" 3 no-receive ||
    fail "cannot stop br1 receiving on the chord"
wait_shape "$PR" 'true,2,0' || fail "the EVC stayed on the silent chord: $(shape "$PR")"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 around the silent chord"
ovs-ofctl -O OpenFlow13 mod-port "unix:$OVS_DIR/br1.mgmt" 3 receive
wait_shape "$PR" 'true,1,2' || fail "not back on the chord once it speaks again: $(shape "$PR")"
pass "a link down by LLDP's liveness alone: the EVC moved through br2, and back"

# A primary_path with a backup_path, no dynamic path: the chord cut, the
# EVC takes its backup_path; the chord back, its primary again.
lk() { printf '{"endpoint_a": {"id": "%s:%s"}, "endpoint_b": {"id": "%s:%s"}}' "$(dpid "$1")" "$2" "$(dpid "$3")" "$4"; }
body=$(printf '{"name": "given", "uni_a": %s, "uni_z": %s, "enabled": true, "primary_path": [%s], "backup_path": [%s, %s]}' \
       "$(uni 1 10)" "$(uni 3 10)" "$(lk 1 3 3 3)" "$(lk 1 2 2 2)" "$(lk 2 3 3 2)")
c=$(post "$body")
[ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] || fail "POST given: $c $(cat "$work/answer")"
GV=$(jq -r .circuit_id "$work/answer")
wait_shape "$GV" 'true,1,2' || fail "not on its primary with its backup_path beside it: $(shape "$GV")"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 over the given primary path"
ovs_vsctl del-port br1 p1-3 || fail "cannot cut the chord"
wait_shape "$GV" 'true,2,0' || fail "not on its backup_path: $(shape "$GV")"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 over the backup_path"
ovs_vsctl -- add-port br1 p1-3 -- set interface p1-3 type=patch options:peer=p3-1 ofport_request=3 ||
    fail "cannot put the chord back"
wait_shape "$GV" 'true,1,2' || fail "not back on its primary: $(shape "$GV")"
# The path shows in the record before the move is done and logged.
wait_for_line "$work/ofcd2.log" "EVC $GV \\(given\\): its primary path is up again" 10 ||
    fail "no log of the return"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 back on the primary path"
pass "primary_path and backup_path: the chord cut, the EVC on its backup_path; back, on its primary"

# Pathfinder's constraints, as mef_eline passes them: the chord's metadata
# says bandwidth 10; asked 100 on its primary path (PATCH), the EVC goes
# through br2 with its backup over the chord; a secondary constraint that
# leaves the chord out too leaves it unprotected; without either it goes
# back over the chord. A constraint that does not read is a 400 naming it.
patch() {
    curl -s -o "$work/answer" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
        --data-binary "$2" "$EL/evc/$1"
}
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"bandwidth": 10}' "$API/api/kytos/topology/v3/links/$chord/metadata")
[ "$c" = 201 ] || fail "the chord's metadata: $c $(cat "$work/answer")"
c=$(patch "$PR" '{"primary_constraints": {"mandatory_metrics": {"bandwidth": 100}}}')
[ "$c" = 200 ] || fail "PATCH primary_constraints: $c $(cat "$work/answer")"
wait_shape "$PR" 'true,2,1' || fail "not through br2 with the chord as backup: $(shape "$PR")"
[ "$(curl -s "$EL/evc/$PR" | jq -r --arg c "$(dpid 1):3" '[.current_path[] | .endpoint_a.id, .endpoint_b.id] | index($c)')" = null ] ||
    fail "the path still crosses the chord: $(curl -s "$EL/evc/$PR" | jq -c .current_path)"
ping_ok 11 10.93.0.12 || fail "h11 cannot ping h12 over the constrained path"
c=$(patch "$PR" "{\"secondary_constraints\": {\"undesired_links\": [\"$chord\"]}}")
[ "$c" = 200 ] || fail "PATCH secondary_constraints: $c $(cat "$work/answer")"
wait_shape "$PR" 'true,2,0' || fail "a backup over an undesired link: $(shape "$PR")"
c=$(patch "$PR" '{"primary_constraints": {"spf_attribute": "speed"}}')
[ "$c" = 400 ] && grep -q "primary_constraints.spf_attribute: 'speed' is not one of" "$work/answer" ||
    fail "a bad constraint: $c $(cat "$work/answer")"
[ "$(shape "$PR")" = 'true,2,0' ] || fail "the refused PATCH moved the EVC: $(shape "$PR")"
c=$(patch "$PR" '{"primary_constraints": {}, "secondary_constraints": {}}')
[ "$c" = 200 ] || fail "PATCH without constraints: $c $(cat "$work/answer")"
wait_shape "$PR" 'true,1,2' || fail "not back over the chord: $(shape "$PR")"
curl -s -o /dev/null -X DELETE "$API/api/kytos/topology/v3/links/$chord/metadata/bandwidth"
pass "constraints: bandwidth asked on the primary path (through br2, backup over the chord), the chord undesired for the backup (unprotected), 400 naming a bad one, back without them"

# ---- 9. PATCH evc/{id} -------------------------------------------------------------------------
# patch ID BODY: the status; the answer in $work/answer.
patch() {
    curl -s -o "$work/answer" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
        --data-binary "$2" "$EL/evc/$1"
}
c=$(patch "$GV" '{"name": "renamed"}')
[ "$c" = 200 ] && [ "$(jq -r ".[\"$GV\"].name, .redeployed" "$work/answer" | paste -sd,)" = renamed,false ] ||
    fail "PATCH name: $c $(cat "$work/answer")"
[ "$(shape "$GV")" = 'true,1,2' ] || fail "a new name moved the EVC: $(shape "$GV")"
c=$(patch "$GV" '{"enabled": false}')
[ "$c" = 200 ] && [ "$(shape "$GV")" = 'false,0,0' ] || fail "PATCH disable: $c $(shape "$GV")"
for b in br1 br3; do ovs_wait_flow $b "cookie=0xaa$GV," gone || fail "$b keeps a disabled EVC's flows"; done
ping_ok 13 10.94.0.14 && fail "h13 still reaches h14 over a disabled EVC"
c=$(patch "$GV" '{"enabled": true}')
[ "$c" = 200 ] && [ "$(jq -r .redeployed "$work/answer")" = true ] && [ "$(shape "$GV")" = 'true,1,2' ] ||
    fail "PATCH enable: $c $(shape "$GV")"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 once enabled again"
# Its primary_path changed to the way through br2: laid again there.
c=$(patch "$GV" "$(printf '{"primary_path": [%s, %s], "backup_path": []}' "$(lk 1 2 2 2)" "$(lk 2 3 3 2)")")
[ "$c" = 200 ] && [ "$(jq -r .redeployed "$work/answer")" = true ] && [ "$(shape "$GV")" = 'true,2,0' ] ||
    fail "PATCH primary_path: $c $(shape "$GV") $(cat "$work/answer")"
ovs_wait_flow br1 "cookie=0xaa$GV, priority=20000,in_port=3," gone || fail "br1 keeps the old primary's flow"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 over the new primary path"
c=$(patch "$GV" '{"active": true}')
[ "$c" = 400 ] && grep -q "active can't be updated." "$work/answer" || fail "PATCH active: $c $(cat "$work/answer")"
c=$(patch "$GV" "$(printf '{"uni_z": %s}' "$(uni 3 7 200)")")
[ "$c" = 400 ] && grep -q 'Tag 200 is not available' "$work/answer" || fail "PATCH to a tag in use: $c $(cat "$work/answer")"
c=$(patch "$GV" '{"queue_id": 9}')
[ "$c" = 400 ] && grep -q 'queue_id' "$work/answer" || fail "PATCH a bad queue_id: $c $(cat "$work/answer")"
c=$(patch "$GV" '{"name": ')
[ "$c" = 400 ] || fail "PATCH bad JSON: $c"
c=$(patch 0123456789abcd '{"name": "x"}')
[ "$c" = 404 ] || fail "PATCH an unknown EVC: $c"
[ "$(curl -s "$EL/evc/$GV" | jq -r '[.name, (.uni_z.interface_id | endswith(":10"))] | @csv')" = '"renamed",true' ] ||
    fail "a refused PATCH changed the EVC: $(curl -s "$EL/evc/$GV" | jq -c '[.name, .uni_z]')"
ping_ok 13 10.94.0.14 || fail "h13 cannot ping h14 after the refused PATCHes"
pass "PATCH evc/{id}: a name kept in place; disabled (flows gone), enabled (laid); a new primary_path laid again; 400 for active, a tag in use, a bad queue_id, bad JSON; 404"

# ---- 10. metadata -------------------------------------------------------------------------------
# meta METHOD PATH [BODY]: the status; the answer in $work/answer.
meta() {
    curl -s -o "$work/answer" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
        ${3:+--data-binary "$3"} "$EL/evc/$2"
}
keys() { curl -s "$EL/evc/?$1" | jq -c 'keys'; }
c=$(meta POST "$GV/metadata" '{"customer": "acme", "tier": 2}')
[ "$c" = 201 ] && [ "$(cat "$work/answer")" = '"Operation successful"' ] || fail "POST metadata: $c $(cat "$work/answer")"
[ "$(curl -s "$EL/evc/$GV/metadata" | jq -c .)" = '{"metadata":{"customer":"acme","tier":2}}' ] ||
    fail "GET metadata: $(curl -s "$EL/evc/$GV/metadata")"
[ "$(keys metadata.customer=acme)" = "[\"$GV\"]" ] && [ "$(keys metadata.tier=2)" = "[\"$GV\"]" ] &&
    [ "$(keys metadata.tier=3)" = '[]' ] || fail "GET evc/?metadata.KEY=VALUE does not filter"
c=$(meta POST metadata "{\"circuit_ids\": [\"$GV\", \"$V12\"], \"site\": \"lab\"}")
[ "$c" = 201 ] && [ "$(keys metadata.site=lab)" = "$(jq -cn --arg a "$GV" --arg b "$V12" '[$a, $b] | sort')" ] ||
    fail "bulk POST metadata: $c $(keys metadata.site=lab)"
c=$(meta POST metadata "{\"circuit_ids\": [\"$GV\", \"0123456789abcd\"], \"x\": 1}")
[ "$c" = 404 ] && [ "$(jq -c .description "$work/answer")" = '["0123456789abcd"]' ] &&
    [ "$(keys metadata.x=1)" = "[\"$GV\"]" ] || fail "bulk POST with an unknown id: $c $(cat "$work/answer")"
c=$(meta DELETE "$GV/metadata/customer")
[ "$c" = 200 ] && [ "$(curl -s "$EL/evc/$GV/metadata" | jq -c '.metadata | keys')" = '["site","tier","x"]' ] ||
    fail "DELETE metadata/customer: $c $(curl -s "$EL/evc/$GV/metadata")"
c=$(meta DELETE metadata/site "{\"circuit_ids\": [\"$GV\", \"$V12\"]}")
[ "$c" = 200 ] && [ "$(keys metadata.site=lab)" = '[]' ] || fail "bulk DELETE metadata/site: $c"
c=$(meta POST "$GV/metadata" '[1]')
[ "$c" = 400 ] || fail "metadata not an object: $c"
c=$(meta POST metadata '{"site": "lab"}')
[ "$c" = 400 ] && grep -q circuit_ids "$work/answer" || fail "bulk POST without circuit_ids: $c $(cat "$work/answer")"
c=$(meta GET 0123456789abcd/metadata)
[ "$c" = 404 ] && grep -q 'circuit_id 0123456789abcd not found.' "$work/answer" || fail "metadata of an unknown EVC: $c"
[ "$(shape "$GV")" = 'true,2,0' ] || fail "metadata moved the EVC: $(shape "$GV")"
pass "metadata: POST, GET, ?metadata.KEY=VALUE filters, bulk POST and DELETE (404 listing unknown ids), DELETE a key; 400, 404"

# ---- 11. the interfaces' tag pools ------------------------------------------------------------------
TG=$API/api/kytos/topology/v3/interfaces
avail() { curl -s "$TG/$1/tag_ranges" | jq -c ".[\"$1\"].available_tags.vlan"; }
has() { jq -e --argjson t "$2" 'any(.[]; .[0] <= $t and $t <= .[1])' <<<"$1" >/dev/null; }
ranges() {
    curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "{\"tag_type\": \"vlan\", \"tag_ranges\": $2}" "$TG/$1/tag_ranges"
}
a7=$(avail "$(dpid 1):7")
! has "$a7" 100 && has "$a7" 101 || fail "br1:7's available tags keep the EVC's VLAN 100: $a7"
sv=$(curl -s "$EL/evc/$V12" | jq '.current_path[0].metadata.s_vlan.value')
a2=$(avail "$(dpid 1):2")
! has "$a2" "$sv" || fail "br1:2's available tags keep S-VLAN $sv of an EVC over its link: $a2"
c=$(ranges "$(dpid 1):7" '[[1, 99], [101, 4094]]')
[ "$c" = 400 ] && grep -q 'Missing tags in tag_range: \[\[100, 100\]\] (in use by a circuit)' "$work/answer" ||
    fail "tag_ranges leaving out a UNI's tag: $c $(cat "$work/answer")"
c=$(ranges "$(dpid 1):2" '[[1000, 1010]]')
[ "$c" = 400 ] && grep -q 'in use by a circuit' "$work/answer" || fail "tag_ranges leaving out an S-VLAN: $c $(cat "$work/answer")"
c=$(ranges "$(dpid 3):7" '[[200, 300], [3799, 3799]]')
[ "$c" = 200 ] || fail "tag_ranges [[200, 300], [3799, 3799]] (LLDP's) on br3:7: $c $(cat "$work/answer")"
c=$(post "$(evc pool "$(uni 1 7 101)" "$(uni 3 7 400)")")
[ "$c" = 400 ] && grep -q 'Tag 400 is not available in 00:00:00:00:00:00:10:03:7: outside its tag_ranges' "$work/answer" ||
    fail "a UNI tag outside its pool: $c $(cat "$work/answer")"
c=$(post "$(evc pool "$(uni 1 7 101)" "$(uni 3 7 250)")")
[ "$c" = 201 ] || fail "a UNI tag inside its pool: $c $(cat "$work/answer")"
PL=$(jq -r .circuit_id "$work/answer")
! has "$(avail "$(dpid 3):7")" 250 || fail "br3:7's available tags keep 250"
curl -s -o /dev/null -X DELETE "$EL/evc/$PL"
has "$(avail "$(dpid 3):7")" 250 || fail "250 not given back to br3:7's pool by the DELETE"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$TG/$(dpid 3):7/tag_ranges")
[ "$c" = 200 ] || fail "tag_ranges back to the default: $c"
# The special tags: an EVC's untagged UNI takes "untagged" from its
# interface's special_available_tags, a special_tags leaving it out is
# refused, the DELETE gives it back.
special() { curl -s "$TG/$1/tag_ranges" | jq -c ".[\"$1\"].special_available_tags.vlan"; }
untagged=$(printf '{"interface_id": "%s:7", "tag": {"tag_type": "vlan", "value": "untagged"}}' "$(dpid 1)")
c=$(post "$(evc untag "$untagged" "$(uni 3 7 252)")")
[ "$c" = 201 ] || fail "an untagged UNI: $c $(cat "$work/answer")"
UT=$(jq -r .circuit_id "$work/answer")
[ "$(special "$(dpid 1):7")" = '["any"]' ] || fail "br1:7 keeps untagged available: $(special "$(dpid 1):7")"
# The listing of every interface says what each one's own GET says (the
# circuits' uses walked once for all of them): the UNIs' VLANs and
# "untagged", the S-VLANs on the ports between switches.
curl -s "$TG/tag_ranges" >"$work/all_tags"
for i in "$(dpid 1):7" "$(dpid 1):2" "$(dpid 3):7" "$(dpid 2):2"; do
    one=$(curl -s "$TG/$i/tag_ranges" | jq -cS ".[\"$i\"]")
    all=$(jq -cS ".[\"$i\"]" "$work/all_tags")
    [ "$one" = "$all" ] && [ "$one" != null ] || fail "GET interfaces/tag_ranges lists $i as $all, its own GET $one"
done
! has "$(jq -c ".[\"$(dpid 1):2\"].available_tags.vlan" "$work/all_tags")" "$sv" ||
    fail "the listing keeps S-VLAN $sv available on br1:2"
c=$(curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary '{"tag_type": "vlan", "special_tags": ["any"]}' "$TG/$(dpid 1):7/special_tags")
[ "$c" = 400 ] && grep -q 'Missing tags in special_tags: untagged (in use by a circuit)' "$work/answer" ||
    fail "special_tags leaving out an EVC's untagged: $c $(cat "$work/answer")"
curl -s -o /dev/null -X DELETE "$EL/evc/$UT"
[ "$(special "$(dpid 1):7")" = '["untagged","any"]' ] || fail "untagged not given back: $(special "$(dpid 1):7")"
pass "tag pools: UNI tags and S-VLANs out of available_tags, a tag_ranges leaving one out refused, a UNI tag outside its pool refused (400), inside taken and given back; an untagged UNI out of special_available_tags, special_tags leaving it out refused; the listing of all interfaces agrees with each one's GET"

# A UNI on a port between switches (br1:2, the link to br2): its VLAN may
# not be one an EVC's path carries there as its S-VLAN (400), and a path
# laid over that link later takes another S-VLAN than the UNI's VLAN.
at2=$(curl -s "$EL/evc/" | jq -r --arg p "$(dpid 1):2" '[.[] | (.current_path + .failover_path)[] |
      select(.endpoint_a.id == $p or .endpoint_b.id == $p) | .metadata.s_vlan.value] | first')
[ -n "$at2" ] && [ "$at2" != null ] || fail "no EVC carries an S-VLAN over br1:2's link"
c=$(post "$(evc onlink "$(uni 1 2 "$at2")" "$(uni 3 7 253)")")
[ "$c" = 400 ] && grep -q "Tag $at2 is not available in $(dpid 1):2: EVC [0-9a-f]* carries it there as its S-VLAN" "$work/answer" ||
    fail "a UNI VLAN equal to an S-VLAN on its port: $c $(cat "$work/answer")"
free=$(avail "$(dpid 1):2" | jq '.[0][0]')
c=$(post "$(evc onlink "$(uni 1 2 "$free")" "$(uni 3 7 253)")")
[ "$c" = 201 ] || fail "a UNI on br1:2 with VLAN $free: $c $(cat "$work/answer")"
U1=$(jq -r .circuit_id "$work/answer")
body=$(printf '{"name": "over", "uni_a": %s, "uni_z": %s, "enabled": true, "primary_path": [%s, %s]}' \
       "$(uni 1 7 254)" "$(uni 3 7 255)" "$(lk 1 2 2 2)" "$(lk 2 3 3 2)")
c=$(post "$body")
[ "$c" = 201 ] || fail "an EVC over br1:2's link: $c $(cat "$work/answer")"
U2=$(jq -r .circuit_id "$work/answer")
got=$(curl -s "$EL/evc/$U2" | jq '.current_path[0].metadata.s_vlan.value')
[ -n "$got" ] && [ "$got" != null ] && [ "$got" != "$free" ] ||
    fail "the path over br1:2 took S-VLAN $got, the VLAN of a UNI there ($free)"
curl -s -o /dev/null -X DELETE "$EL/evc/$U1"
curl -s -o /dev/null -X DELETE "$EL/evc/$U2"
pass "a UNI on a port between switches: its VLAN not an S-VLAN carried there (400 naming the EVC), a later path's S-VLAN not its VLAN ($got, not $free)"

# ---- 12. a restart with a switch late ---------------------------------------------------------------
# A PATCH to a path that is not there leaves the EVC inactive: kept so.
c=$(patch "$GV" "$(printf '{"primary_path": [%s], "backup_path": []}' "$(lk 1 11 3 11)")")
[ "$c" = 200 ] && [ "$(jq -r .redeployed "$work/answer")" = false ] && [ "$(shape "$GV")" = 'false,0,0' ] ||
    fail "PATCH to a missing path: $c $(shape "$GV")"
v12=$(shape "$V12")
[ "$v12" = 'true,1,2' ] || fail "VLAN 100 - 200 is not over the chord with a backup through br2: $v12"
# br2 kept away from the restarted ofcd for longer than the settle time
# (two LLDP rounds and a link's timeout: 5 s here) and the worker's
# 10 s sweep: the EVC whose backup crosses it stays as it is.
stop_ofcd                       # first: br2 leaving a running ofcd would be a switch down
ovs_vsctl del-controller br2 || fail "cannot take br2's controller away"
start_ofcd "$work/ofcd3.log" "${ofcd_args[@]}"
wait_stat "$work/ofcd3.log" "switches_up" 2 60 || fail "br1 and br3 did not come back"
sleep 12                        # the rule under test is a time: past settle and a sweep
[ "$(shape "$V12")" = 'true,1,2' ] || fail "an EVC was moved while br2 had not come back: $(shape "$V12")"
grep -E "EVC $V12 .*(laid again|no path)" "$work/ofcd3.log" && fail "VLAN 100 - 200 was moved after the restart"
[ "$(curl -s "$EL/evc/$GV" | jq -r '[.active, .primary_path[0].endpoint_a.id] | @csv')" = "false,\"$(dpid 1):11\"" ] ||
    fail "the PATCH was not kept over the restart: $(curl -s "$EL/evc/$GV" | jq -c '[.active, .primary_path]')"
ovs_vsctl set-controller br2 tcp:10.66.0.2:6653 || fail "cannot give br2 its controller back"
wait_stat "$work/ofcd3.log" "switches_up" 3 60 || fail "br2 did not come back"
ping_ok 7 10.91.0.8 || fail "h7 cannot ping h8 once br2 is back"
pass "a restart with br2 away 12 s: no EVC moved for its absence; a PATCH that left an EVC without a path kept over it"

# Nothing read back at that restart was taken for down, before or after br2 came back.
grep -E "EVC [0-9a-f]+ \([a-z0-9-]+\): (a link of its (path|backup) is down|no path now)" "$work/ofcd3.log" &&
    fail "an EVC was taken down after the restart"
pass "after the restart no EVC was taken down before its links were found again"

stop_ofcd
echo "ovs_eline: all checks passed"
