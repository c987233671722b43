#!/usr/bin/env bash
# OpenFlow channel against Open vSwitch (user space, datapath_type=netdev,
# OpenFlow13 only): 100 bridges, each its own dpid, connect to
# 10.66.0.2:6653 and reach ESTABLISHED; ofcd knows their ports; a port added
# with ovs-vsctl shows up through PORT_STATUS; OVS's 1 s inactivity probe never
# disconnects while ofcd is idle or busy; SIGKILL of ovs-vswitchd and a
# restart reconnects all 100.
#
# usage: ovs_channel.sh OFCD_BINARY CONFIG_FILE ECHO_CLIENT
set -uo pipefail
OFCD=$1
CONF=$2
CLIENT=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vswitchd "Open vSwitch"
require_test_services           # the echo load of the busy half

N=${OVS_BRIDGES:-100}
it_setup ovs

log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --tcp.echo_port=7007
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
t0=$SECONDS
ovs_add_bridges "$N" tcp:10.66.0.2:6653 1000 || fail "cannot create $N bridges"
wait_stat "$log" "switches_up" "$N" 90 || fail "not all $N switches reached ESTABLISHED"
pass "$N OVS bridges established in $((SECONDS - t0)) s"
ovs_wait_connected "$N" 30 || fail "OVS does not see all controllers connected"
pass "OVS reports all $N controllers connected"

# Every bridge's LOCAL port came in PORT_DESC.
kill -USR2 "$OFCD_PID"
# The worker lists its switches on its next tick (within 100 ms).
up=0
end=$((SECONDS + 5))
while [ $SECONDS -lt $end ]; do
    up=$(grep -cE 'of: switch [0-9a-f]{16}: up, [1-9][0-9]* ports' "$log")
    [ "$up" -ge "$N" ] && break
    sleep 0.1
done
[ "$up" -ge "$N" ] || fail "only $up switches listed up with ports"
pass "ofcd knows every switch's ports (PORT_DESC)"

# A new port appears through PORT_STATUS.
ovs_vsctl add-port br1 itp1 -- set interface itp1 type=internal || fail "add-port failed"
wait_for_line "$log" "switch 0000000000001001 port [0-9]+ \(itp1\) added" 20 ||
    fail "PORT_STATUS for the new port itp1 not seen"
pass "port added with ovs-vsctl reported through PORT_STATUS"

# Idle, then busy: OVS probes every second of silence; none may disconnect.
closed_before=$(ofcd_stat "$log" "conns_down")
sleep_s=8
timeout $((sleep_s + 60)) "$CLIENT" --addr 10.66.0.2 --port 7007 --conns 200 --bytes 2M \
    --timeout 60 >"$work/load.out" 2>&1 &
load_pid=$!
wait_stat "$log" "conns_down" "$closed_before" 1 || true
wait "$load_pid" || { tail -3 "$work/load.out"; fail "echo load failed"; }
# Let at least several probe intervals pass idle after the load.
end=$((SECONDS + sleep_s))
while [ $SECONDS -lt $end ]; do sleep 1; done
closed_after=$(ofcd_stat "$log" "conns_down")
[ "$closed_after" = "$closed_before" ] ||
    fail "$((closed_after - closed_before)) switch connections dropped while idle/busy"
echo_rx=$(ofcd_stat "$log" "echo_inline")
[ "$echo_rx" -gt 0 ] || fail "no ECHO_REQUEST from OVS answered: was the probe running?"
pass "no disconnect through $(tail -1 "$work/load.out" | cut -d' ' -f3) of echo load and" \
     "${sleep_s}s idle ($echo_rx OVS probes answered inline)"

# ovs-vswitchd killed and restarted: all come back.
est_before=$(ofcd_stat "$log" "established")
ovs_kill_vswitchd
wait_stat "$log" "switches_up" 0 30 || fail "ofcd did not see the switches go down"
pass "SIGKILL of ovs-vswitchd: ofcd saw all $N go down"
ovs_start_vswitchd >/dev/null 2>&1 || fail "cannot restart ovs-vswitchd"
wait_stat "$log" "switches_up" "$N" 90 || fail "not all $N switches came back"
est_after=$(ofcd_stat "$log" "established")
[ $((est_after - est_before)) -ge "$N" ] || fail "only $((est_after - est_before)) re-established"
pass "ovs-vswitchd restarted: all $N re-established"
grep -q "ERROR" "$log" && { grep ERROR "$log" | head -5; fail "errors in the ofcd log"; }
stop_ofcd
echo "ovs_channel: all checks passed"
