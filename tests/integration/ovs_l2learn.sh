#!/usr/bin/env bash
# The L2 learning-switch app: two hosts (network namespaces) ping each other
# through an Open vSwitch bridge (user space) whose only brain is ofcd with
# apps.l2_learning=true. The first packets go to ofcd as PACKET_IN and are
# flooded; once both MACs are learnt ofcd installs flows and the switch
# forwards by itself (the flows show in ovs-ofctl dump-flows).
#
# usage: ovs_l2learn.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root

it_setup l2
it_on_exit ip netns del ofcd-h1
it_on_exit ip netns del ofcd-h2
it_on_exit ip link del ofcd-v1
it_on_exit ip link del ofcd-v2

# Two hosts on 10.88.0.0/24, each behind a veth whose other end is a bridge port.
for i in 1 2; do
    ip netns add ofcd-h$i || fail "cannot create namespace ofcd-h$i"
    ip link add ofcd-v$i type veth peer name eth0 netns ofcd-h$i || fail "cannot create veth"
    ip link set ofcd-v$i up
    ip -n ofcd-h$i addr add 10.88.0.$i/24 dev eth0
    ip -n ofcd-h$i link set eth0 up
    ip -n ofcd-h$i link set lo up
done

log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --apps.l2_learning=true
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 1 tcp:10.66.0.2:6653 1000 || fail "cannot create the bridge"
ovs_vsctl add-port br1 ofcd-v1 -- add-port br1 ofcd-v2 || fail "cannot add the host ports"
wait_stat "$log" "switches_up" 1 30 || fail "the bridge did not establish"

# Before ofcd's table-miss flow is in, nothing passes; give ping a few tries.
out=$(ip netns exec ofcd-h1 ping -c 5 -i 0.3 -W 2 10.88.0.2 2>&1)
echo "$out" | grep -qE '[1-5] received' || { echo "$out"; fail "h1 cannot ping h2 through br1"; }
pass "h1 pings h2 through the bridge ($(echo "$out" | grep -o '[0-9]* received'))"
out=$(ip netns exec ofcd-h1 ping -c 3 -i 0.2 -W 2 10.88.0.2 2>&1)
echo "$out" | grep -q '3 received' || { echo "$out"; fail "steady state: not 3 of 3"; }
pass "steady state: 3 of 3"

flows=$(ovs-ofctl -O OpenFlow13 dump-flows br1 2>&1)
echo "$flows" | grep -q 'priority=0 actions=CONTROLLER:65535' ||
    { echo "$flows"; fail "no table-miss flow to the controller"; }
n=$(echo "$flows" | grep -c 'priority=10,in_port=.*dl_dst=')
[ "$n" -ge 2 ] || { echo "$flows"; fail "learnt flows missing ($n)"; }
pass "table-miss entry and $n learnt flows installed by ofcd"
pin=$(ofcd_stat "$log" "packet_in")
[ "$pin" -ge 2 ] || fail "ofcd saw $pin PACKET_INs"
pass "$pin PACKET_INs handled"
stop_ofcd
echo "ovs_l2learn: all checks passed"
