#!/usr/bin/env bash
# ROLE_REQUEST: with openflow.role=master ofcd asks every switch for the
# master role once established; OVS then reports role=master for ofcd's
# controller entry, and the switch's ROLE_REPLY reaches the control thread.
#
# usage: ovs_role.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root

it_setup role

log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --openflow.role=master --openflow.generation_id=7
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 2 tcp:10.66.0.2:6653 1000 || fail "cannot create bridges"
wait_stat "$log" "switches_up" 2 30 || fail "switches did not establish"
end=$((SECONDS + 20))
while [ $SECONDS -lt $end ]; do
    [ "$(ovs_vsctl --bare --columns=role list controller | grep -c master)" = 2 ] && break
    sleep 0.5
done
[ "$(ovs_vsctl --bare --columns=role list controller | grep -c master)" = 2 ] ||
    fail "OVS does not report ofcd as master"
pass "OVS reports role=master for both bridges"
kill -USR2 "$OFCD_PID"
wait_for_line "$log" 'ctl: switch 0000000000001002: .*role_replies=1' 5 ||
    fail "ROLE_REPLY not seen by the control thread"
pass "ROLE_REPLY reached the control thread"
stop_ofcd
echo "ovs_role: all checks passed"
