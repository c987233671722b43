#!/usr/bin/env bash
# The README's "Five minutes from a checkout", run as a newcomer would copy
# it: the block under its "tour" marker, unchanged, in a shell of its own,
# with ofcd started as `make run` starts it (the shipped configuration) and
# Open vSwitch in user space (a private one: ovs-vsctl and ovs-ofctl find it
# through OVS_RUNDIR). What the block shows must be so: the bridge
# connected, the POST accepted, the flow on the switch with its match, ofcd's
# view of the switch, and after the block's DELETE no such flow left.
#
# usage: readme_tour.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vswitchd "Open vSwitch"
require_tool jq
it_setup readme_tour

awk '/<!-- tour:/ { on = 1; next } on && /^```sh$/ { inblock = 1; next }
     inblock && /^```$/ { exit } inblock { print }' "$root/README.md" >"$work/tour.sh"
[ "$(grep -c . "$work/tour.sh")" -ge 5 ] || fail "no tour block under README's marker: $(cat "$work/tour.sh")"

start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
# The block runs ./build-run/app/ofcdctl, as `make run` builds it.
mkdir -p "$work/run/build-run/app"
ln -s "$(dirname "$OFCD")/ofcdctl" "$work/run/build-run/app/ofcdctl"
(cd "$work/run" && timeout 60 bash -e "$work/tour.sh") >"$work/out" 2>&1 ||
    fail "the README's tour failed: $(tail -n 20 "$work/out")"
grep -q '"response": *"FlowMod Messages Sent"' "$work/out" || fail "the POST's answer: $(cat "$work/out")"
grep -q 'priority=100,ip,nw_dst=10.1.0.0/16 actions=output:1' "$work/out" ||
    fail "dump-flows did not show the flow: $(cat "$work/out")"
# Topology is on by default: the switch holds ofcd's LLDP flow beside the tour's.
grep 'cookie=0xab00000000000001' "$work/out" | grep 'priority=50000' | grep -q '0x88cc' ||
    fail "dump-flows did not show ofcd's LLDP flow (apps.topology on by default): $(cat "$work/out")"
grep -qi '0000000000000001\|00:00:00:00:00:00:00:01' "$work/out" ||
    fail "ofcdctl switch/show did not show the switch: $(cat "$work/out")"
for _ in $(seq 50); do
    ovs-ofctl -O OpenFlow13 dump-flows br0 | grep -q 'nw_dst=10.1.0.0/16' || break
    sleep 0.1
done
ovs-ofctl -O OpenFlow13 dump-flows br0 | grep -q 'nw_dst=10.1.0.0/16' &&
    fail "the tour's DELETE left the flow on the switch"
pass "the README's tour, as written: bridge connected, flow added, seen on the switch (beside the LLDP flow) and in ofcdctl, deleted"
stop_ofcd
exit 0
