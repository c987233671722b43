#!/usr/bin/env bash
# Kytos-ng's published topology and of_lldp contracts against ofcd: every
# documented path, method and status (tests/contract/kytos_topology.json and
# kytos_of_lldp.json, derived from Kytos' openapi.yml files) with a request
# Kytos answers so, and every 200/201 body validated against the contracts'
# schemas (tests/contract/kytos_topology_contract.py).
#
# Four Open vSwitch bridges, ofcd with apps.topology=true, links made of
# patch ports: br1:1 - br2:2 (kept), br2:1 - br3:2 and br2:3 - br4:2. br3
# and br4 are what the script deletes, with their links, so they are
# readied here: disabled while connected (their LLDP flow, owner
# of_lldp, stored and installed, goes with it: a switch with stored flows
# is not deleted), then disconnected (ofcd, unlike Kytos, does not forget a
# connected switch). br1's ports 5 and 6 are veths whose peers stay down
# (no carrier, no link): interfaces the script deletes. LLDP on VLAN 3799,
# as Kytos' of_lldp (which takes it from every enabled switch's interfaces'
# available VLANs: the script's tag_ranges cases count on it).
#
# usage: kytos_topology_contract.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vsctl "Open vSwitch"
# Debian's python3-jsonschema is under /usr/bin/python3, which a python3
# earlier on PATH (pyenv, a venv) may not see.
PY=
for p in python3 /usr/bin/python3; do
    "$p" -c 'import jsonschema' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || fail "no python3 with jsonschema (Debian: python3-jsonschema)"

API=http://127.0.0.1:8181/api/kytos/topology/v3
FM=http://127.0.0.1:8181/api/kytos/flow_manager/v2
dp() { printf '00:00:00:00:00:00:%02x:%02x' $(((0x1000 + $1) >> 8)) $(((0x1000 + $1) & 255)); }

it_setup kytos-topology-contract
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=1 --apps.topology=true \
    --topology.lldp_interval_s=1 --topology.link_timeout_s=3 --topology.lldp_vlan=3799
ovs_add_bridges 4 tcp:10.66.0.2:6653 1000 || fail "cannot add bridges"

for n in 5 6; do
    ip link del "ktcdown$n" 2>/dev/null
    ip link add "ktcdown$n" type veth peer name "ktcpeer$n" || fail "cannot make a veth pair"
    it_on_exit ip link del "ktcdown$n"
    ip link set "ktcdown$n" up || fail "cannot set ktcdown$n up"
done
# Bridge i's port P to bridge j's port Q, one transaction (patch ports need
# both peers at once); br1's two ports without carrier.
args=(-- add-port br1 ktcdown5 -- set interface ktcdown5 ofport_request=5
      -- add-port br1 ktcdown6 -- set interface ktcdown6 ofport_request=6)
for p in "1 1 2 2" "2 1 3 2" "2 3 4 2"; do
    set -- $p
    args+=(-- add-port "br$1" "p$1-$3" -- set interface "p$1-$3" type=patch
           "options:peer=p$3-$1" "ofport_request=$2"
           -- add-port "br$3" "p$3-$1" -- set interface "p$3-$1" type=patch
           "options:peer=p$1-$3" "ofport_request=$4")
done
ovs_vsctl "${args[@]}" || fail "cannot wire the bridges"
wait_rest_metric ofcd_switches_up 4 60 || fail "the bridges never came up"

# until_json SECS URL PYTHON-EXPR: until the expression holds of d, the
# JSON GET URL answers (1 after SECS).
until_json() {
    local end=$((SECONDS + $1))
    local check="import json, sys; d = json.load(sys.stdin); sys.exit(not ($3))"
    until curl -s "$2" | "$PY" -c "$check" 2>/dev/null; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.2
    done
}
until_json 20 "$API/links" 'sum(l["active"] for l in d["links"].values()) == 3' ||
    fail "not all 3 links came up: $(curl -s "$API/links")"
until_json 20 "$API/interfaces" \
    "not any(d['interfaces'][i]['active'] for i in ('$(dp 1):5', '$(dp 1):6'))" ||
    fail "br1's ports 5 and 6 are not there, down: $(curl -s "$API/interfaces")"
pass "4 bridges up, 3 links up, br1's ports 5 and 6 down"

for i in 3 4; do
    r=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$API/switches/$(dp $i)/disable")
    [ "$r" = 201 ] || fail "disable br$i: $r"
    ovs_wait_flow "br$i" "dl_type=0x88cc" gone || fail "br$i kept its LLDP flow once disabled"
    until_json 10 "$FM/stored_flows?dpid=$(dp $i)" 'not any(d.values())' ||
        fail "br$i, disabled, still has stored flows: $(curl -s "$FM/stored_flows?dpid=$(dp $i)")"
done
ovs_vsctl del-controller br3 -- del-controller br4 || fail "del-controller"
wait_rest_metric ofcd_switches_up 2 30 || fail "br3 and br4 did not go down"
pass "br3 and br4 disabled (LLDP flows gone), then disconnected"

"$PY" "$here/../contract/kytos_topology_contract.py" "$here/../contract/kytos_topology.json" \
    "$here/../contract/kytos_of_lldp.json" http://127.0.0.1:8181 \
    "$(dp 1)" "$(dp 2)" "$(dp 3)" "$(dp 4)" "$(dp 1):5" "$(dp 1):6" ||
    fail "ofcd departs from Kytos-ng's topology/of_lldp contracts"
stop_ofcd
pass "kytos_topology_contract: every documented path, method and status as Kytos-ng answers it"

# Kytos-ng without kytosd -E: topology.enable_on_start = false on a new
# data directory. br1 and br2, met for the first time, start disabled: no
# LLDP flow, no link; enabled through the API, their flows and link come.
# (The bridges' flows of the first run are cleared: a new data directory
# knows nothing of them.)
for i in 1 2; do
    ovs-ofctl -O OpenFlow13 del-flows "unix:$OVS_DIR/br$i.mgmt" || fail "del-flows br$i"
done
start_ofcd "$work/ofcd.2.log" --config "$CONF" --app.data_dir="$work/var2" \
    --app.stats_log_interval_s=0 --apps.topology=true --topology.lldp_interval_s=1 \
    --topology.link_timeout_s=3 --topology.enable_on_start=false
wait_rest_metric ofcd_switches_up 2 30 || fail "br1 and br2 did not come back"
until_json 10 "$API/switches" "all(not d['switches'][s]['enabled'] for s in ('$(dp 1)', '$(dp 2)'))" ||
    fail "br1 and br2 not disabled at start: $(curl -s "$API/switches")"
until_json 10 "$API/interfaces" "not d['interfaces']['$(dp 1):1']['enabled']" ||
    fail "br1:1 not disabled at start"
ovs_dump_flows br1 | grep -q "dl_type=0x88cc" && fail "br1, disabled, got an LLDP flow"
for i in 1 2; do
    r=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$API/switches/$(dp $i)/enable")
    [ "$r" = 201 ] || fail "enable br$i: $r"
    r=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$API/interfaces/switch/$(dp $i)/enable")
    [ "$r" = 200 ] || fail "enable br$i's interfaces: $r"
done
ovs_wait_flow br1 "dl_vlan=3799,dl_type=0x88cc" || fail "br1, enabled, has no LLDP flow"
until_json 20 "$API/links" "any(l['active'] for l in d['links'].values())" ||
    fail "no link once br1 and br2 were enabled: $(curl -s "$API/links")"
stop_ofcd
pass "topology.enable_on_start = false: new switches and interfaces start disabled, LLDP once enabled"
