#!/usr/bin/env bash
# Circuits on a Mininet ring, as Kytos-ng's end-to-end suite tests
# mef_eline: three user-space Open vSwitch switches s1 - s2 - s3 - s1 with
# hosts (mininet_ring.py, driven line by line), ofcd their controller.
#  1. EVCs intra-switch and across the ring — an EPL (no tag), a
#     different VLAN each side (100 - 200), the same VLAN on two UNIs (300),
#     untagged to VLAN 400 — each proven by ping between its hosts, no
#     other pair reaching; the EPL across the ring laid over s1 - s3 with
#     a backup through s2 behind fast-failover groups;
#  2. the s1 - s3 link set down under a 10 ms ping: the ping goes on (the
#     packets lost counted), the EVC laid through s2, its old flows gone;
#     the link back: laid over it again, protected again;
#  3. ofcd restarted: every EVC active on the path it had, pings pass;
#  4. DELETE of every EVC: no flow of theirs and no group left on any
#     switch, their pings stop.
#
# usage: mininet_eline.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq
/usr/bin/python3 -c 'import mininet' 2>/dev/null || fail "Mininet missing: scripts/install-deps installs it"

it_setup mininet-eline
API=http://127.0.0.1:8181
EL=$API/api/kytos/mef_eline/v2
ofcd_args=(--config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0
           --topology.lldp_interval_s=1 --topology.link_timeout_s=3)

start_ofcd "$work/ofcd.log" "${ofcd_args[@]}"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
coproc MN { /usr/bin/python3 "$here/mininet_ring.py" 10.66.0.2:6653 "$work" 2>"$work/mininet.err"; }
mn_in=${MN[1]}
mn_out=${MN[0]}
mn_pid=$MN_PID
# On exit, Mininet takes its network down (its switches, links, hosts). Its
# pid kept apart: bash unsets MN_PID once the coprocess is gone, and under
# set -u that would end the exit trap before ofcd and OVS are stopped.
it_on_exit 'echo quit >&$mn_in; wait_for_exit $mn_pid 60'
read -r -t 120 -u "$mn_out" line && [ "$line" = ready ] ||
    fail "Mininet did not build the ring: $line $(tail -5 "$work/mininet.err")"

# mn COMMAND...: Mininet's answer (the words after "ok"); fails on "err".
mn() {
    local a
    echo "$*" >&"$mn_in"
    read -r -t 120 -u "$mn_out" a || fail "Mininet did not answer '$*'"
    [ "${a%% *}" = ok ] || fail "Mininet: '$*': $a"
    echo "${a#ok}" | sed 's/^ //'
}
# reach FROM IP: at least one of 5 pings answered (the first may wait for ARP).
reach() { [ "$(mn ping "$1" "$2")" -ge 1 ]; }
dpid() { printf '00:00:00:00:00:00:00:%02x' "$1"; }
uni() {
    local tag=
    [ -n "${3:-}" ] && tag=$(printf ', "tag": {"tag_type": "vlan", "value": %s}' "$3")
    printf '{"interface_id": "%s:%s"%s}' "$(dpid "$1")" "$2" "$tag"
}
post_evc() {
    local c
    c=$(curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "$(printf '{"name": "%s", "uni_a": %s, "uni_z": %s, "enabled": true, "dynamic_backup_path": true}' "$1" "$2" "$3")" \
        "$EL/evc/")
    [ "$c" = 201 ] && [ "$(jq -r .deployed "$work/answer")" = true ] ||
        fail "POST $1: $c $(cat "$work/answer")"
    jq -r .circuit_id "$work/answer"
}
shape() { curl -s "$EL/evc/$1" | jq -r '[.active, (.current_path | length), (.failover_path | length)] | @csv'; }
wait_shape() { for _ in $(seq 100); do [ "$(shape "$1")" = "$2" ] && return 0; sleep 0.2; done; return 1; }
links_up() { curl -s "$API/api/kytos/topology/v3/links" | jq '[.links[] | select(.status == "UP")] | length'; }
of() { ovs-ofctl -O OpenFlow13 "$1" "unix:$OVS_DIR/$2.mgmt"; }

wait_stat "$work/ofcd.log" "switches_up" 3 60 || fail "the ring's switches did not connect"
for _ in $(seq 150); do [ "$(links_up)" = 3 ] && break; sleep 0.2; done
[ "$(links_up)" = 3 ] || fail "the ring's 3 links were not found: $(links_up) up"
reach a1 10.70.0.3 && fail "a1 reaches a3 before any EVC"

# ---- 1. EVCs ---------------------------------------------------------------------------------
EPL=$(post_evc epl "$(uni 1 1)" "$(uni 3 1)")
INTRA=$(post_evc intra "$(uni 1 2)" "$(uni 1 3)")
V12=$(post_evc v100-200 "$(uni 1 4 100)" "$(uni 2 2 200)")
V3=$(post_evc v300 "$(uni 1 5 300)" "$(uni 3 2 300)")
UT=$(post_evc untagged-400 "$(uni 2 3 '"untagged"')" "$(uni 3 3 400)")
reach a1 10.70.0.3 || fail "a1 cannot ping a3 over the EPL"
reach b1 10.70.0.12 || fail "b1 cannot ping b2 over the intra-switch EVC"
reach c1 10.71.0.2 || fail "c1 (VLAN 100) cannot ping c2 (VLAN 200)"
reach d1 10.72.0.3 || fail "d1 cannot ping d3 on VLAN 300"
reach e2 10.73.0.3 || fail "e2 (untagged) cannot ping e3 (VLAN 400)"
# Each EVC carries its own pair only.
reach a1 10.70.0.12 && fail "a1 reaches b2 across EVCs"
[ "$(shape "$EPL")" = 'true,1,2' ] || fail "the EPL is not over s1 - s3 with a backup through s2: $(shape "$EPL")"
for s in s1 s3; do
    of dump-groups $s | grep -q 'type=ff,bucket=watch_port:12,' ||
        fail "$s: no fast-failover group watching the s1 - s3 link: $(of dump-groups $s)"
done
ovs_dump_flows s1 | grep "cookie=0xaa$EPL, priority=10000,in_port=1 " | grep -q 'actions=push_vlan:0x88a8,group:' ||
    fail "s1: the EPL's push flow is not mef_eline's into the group: $(ovs_dump_flows s1 | grep "0xaa$EPL")"
ovs_dump_flows s2 | grep "cookie=0xaa$V12, priority=20000,in_port=2,dl_vlan=200 " | grep -q 'actions=group:' ||
    fail "s2: VLAN 200's push flow does not go to its group: $(ovs_dump_flows s2 | grep "0xaa$V12")"
pass "on the ring: EPL, intra-switch, VLAN 100 - 200, VLAN 300 - 300, untagged - 400 each carry their hosts' pings; the EPL over s1 - s3 protected through s2"

# ---- 2. the current path's link down, and back -------------------------------------------------
job=$(mn pingbg a1 10.70.0.3 300 0.01)
mn ping a1 10.70.0.3 1 >/dev/null    # the background ping is running
mn link s1 s3 down >/dev/null
got=$(mn pingwait a1 "$job")
wait_shape "$EPL" 'true,2,0' || fail "the EPL was not laid through s2: $(shape "$EPL")"
[ "${got:-0}" -ge 200 ] || fail "a1's ping did not go on over the cut: $got of 300"
reach a1 10.70.0.3 || fail "a1 cannot ping a3 through s2"
for s in s1 s3; do ovs_wait_flow $s "cookie=0xaa$EPL, priority=20000,in_port=12," gone || fail "$s keeps the old path's flow"; done
moved=$(grep -o "EVC $EPL (epl): [a-z0-9: ]* down: laid again over 2 links in [0-9]* ms" "$work/ofcd.log" | head -1)
[ -n "$moved" ] || fail "no log of the move: $(grep "$EPL" "$work/ofcd.log" | tail -3)"
mn link s1 s3 up >/dev/null
wait_shape "$EPL" 'true,1,2' || fail "not laid over s1 - s3 again once it is back: $(shape "$EPL")"
reach a1 10.70.0.3 || fail "a1 cannot ping a3 over s1 - s3 again"
pass "s1 - s3 down under a 10 ms ping: $((300 - got)) of 300 lost, the EPL through s2 (${moved##* in }); back up: over it again, protected"

# ---- 3. a restart keeps them where they were -----------------------------------------------------
paths() { curl -s "$EL/evc/" | jq -S '[to_entries[] | {(.key): [.value.active, .value.current_path]}] | add'; }
before=$(paths)
stop_ofcd
start_ofcd "$work/ofcd2.log" "${ofcd_args[@]}"
wait_stat "$work/ofcd2.log" "switches_up" 3 60 || fail "the ring did not come back"
for _ in $(seq 150); do [ "$(links_up)" = 3 ] && break; sleep 0.2; done
[ "$(paths)" = "$before" ] || fail "the EVCs' paths changed over the restart: $(diff <(echo "$before") <(paths))"
reach c1 10.71.0.2 && reach e2 10.73.0.3 && reach a1 10.70.0.3 || fail "pings fail after the restart"
pass "after ofcd's restart: 5 EVCs active on the paths they had, pings pass"

# ---- 4. DELETE ------------------------------------------------------------------------------------
for id in $EPL $INTRA $V12 $V3 $UT; do
    c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$EL/evc/$id")
    [ "$c" = 200 ] || fail "DELETE $id: $c"
done
for s in s1 s2 s3; do
    ovs_wait_flow $s "cookie=0xaa" gone || fail "$s keeps mef_eline's flows"
    [ -z "$(of dump-groups $s | grep group_id)" ] || fail "$s keeps groups: $(of dump-groups $s)"
done
reach a1 10.70.0.3 && fail "a1 still reaches a3 after the DELETE"
reach c1 10.71.0.2 && fail "c1 still reaches c2 after the DELETE"
pass "DELETE: no mef_eline flow nor group left on s1, s2, s3; the pings stop"

stop_ofcd
echo "mininet_eline: all checks passed"
