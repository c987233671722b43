#!/usr/bin/env bash
# The workers' role gate in cluster mode, end to end: one ofcd node on a
# single-member etcd of its own (loopback ports 23795-23796), topology on, two
# Open vSwitch bridges joined by a patch port.
#  - the node wins both bridges (OVS reports role=master) and the topology
#    app's LLDP PACKET_OUTs leave (lldp_sent grows);
#  - etcd stopped past the lease TTL: the node's fence closes, the workers
#    refuse every LLDP PACKET_OUT (app_sends_not_master grows, lldp_sent
#    stands still) although OVS still calls it master;
#  - etcd back: the node proves its lease again and the LLDP probes resume.
#
# usage: cluster_gate.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vsctl "Open vSwitch"
require_tool etcd "etcd (scripts/install-deps installs etcd-server)"

it_setup cluster_gate
client=http://127.0.0.1:23795
TTL=3
log=$work/ofcd.log

started=0
etcd_single gate 23795 23796 "$work" || started=$?
it_on_exit "kill -CONT $ETCD_PID 2>/dev/null; kill $ETCD_PID 2>/dev/null"
[ $started = 0 ] || fail "etcd did not start"
etcd_pid=$ETCD_PID

start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --cluster.etcd_endpoints=$client --cluster.node_id=gate1 --cluster.lease_ttl_s=$TTL \
    --openflow.role=equal --apps.topology=true --topology.lldp_interval_s=1 \
    --topology.link_timeout_s=3

# metric_sum WHAT: the openflow_worker (or topology) counter WHAT over every lcore.
metric_sum() {
    curl -s http://127.0.0.1:8181/metrics |
        awk -v w="what=\"$1\"" 'index($1, w) && ($1 ~ /^ofcd_(openflow_worker|topology)/) \
                                { s += $2 } END { print s + 0 }'
}
# wait_grows WHAT FROM SECS: until WHAT is above FROM.
wait_grows() {
    local end=$((SECONDS + $3))
    while [ "$(metric_sum "$1")" -le "$2" ]; do
        [ $SECONDS -ge $end ] && { echo "$1 still $(metric_sum "$1") after $3 s" >&2; return 1; }
        sleep 0.2
    done
}
masters() { ovs_vsctl --bare --columns=role list controller | grep -c master; }

ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 2 tcp:10.66.0.2:6653 1000 || fail "cannot create the bridges"
ovs_vsctl -- add-port br1 p1-2 -- set interface p1-2 type=patch options:peer=p2-1 \
          ofport_request=1 -- add-port br2 p2-1 -- set interface p2-1 type=patch \
          options:peer=p1-2 ofport_request=1 || fail "cannot wire the bridges"

end=$((SECONDS + 20))
while [ "$(masters)" != 2 ] && [ $SECONDS -lt $end ]; do sleep 0.2; done
[ "$(masters)" = 2 ] || { ovs_vsctl list controller; fail "not master of both bridges"; }
wait_grows lldp_sent 0 10 || fail "no LLDP sent as master"
pass "master of both bridges (OVS role=master); LLDP PACKET_OUTs leave" \
     "($(metric_sum app_sends_not_master) refused before the ROLE_REPLYs)"

# Fence: etcd silent past the TTL; the node may not act, OVS is not told.
refused=$(metric_sum app_sends_not_master)
kill -STOP $etcd_pid
wait_grows app_sends_not_master "$refused" $((TTL + 5)) ||
    fail "etcd stopped $((TTL + 5)) s: no app send refused"
sent=$(metric_sum lldp_sent)
refused=$(metric_sum app_sends_not_master)
# Two more probe rounds refused (each bridge probes once a second), and
# none of them sent.
wait_grows app_sends_not_master $((refused + 3)) 10 ||
    fail "LLDP probes not refused with the fence closed"
[ "$(metric_sum lldp_sent)" = "$sent" ] || fail "LLDP sent with the fence closed"
pass "fence closed: LLDP PACKET_OUTs refused ($(metric_sum app_sends_not_master)), none sent"

kill -CONT $etcd_pid
wait_grows lldp_sent "$sent" 20 || fail "LLDP did not resume once etcd was back"
pass "etcd back: LLDP PACKET_OUTs leave again"
echo "cluster_gate: all checks passed"
