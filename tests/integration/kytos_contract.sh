#!/usr/bin/env bash
# Kytos-ng's published flow_manager contract against ofcd: every documented
# path, method and status (tests/contract/kytos_flow_manager.json, derived
# from Kytos' openapi.yml) with a request Kytos answers so, and every 200
# body validated against the contract's schemas (tests/contract/
# kytos_contract.py). Two Open vSwitch bridges: one connected, one that
# ofcd knows but that is disconnected (for the 424s).
#
# usage: kytos_contract.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
# Debian's python3-jsonschema is under /usr/bin/python3, which a python3
# earlier on PATH (pyenv, a venv) may not see.
PY=
for p in python3 /usr/bin/python3; do
    "$p" -c 'import jsonschema' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || fail "no python3 with jsonschema (Debian: python3-jsonschema)"

it_setup kytos-contract
ovs_start "$work/ovs" || fail "cannot start Open vSwitch"
start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=1
ovs_add_bridges 2 tcp:10.66.0.2:6653 1000 || fail "cannot add bridges"
wait_rest_metric ofcd_switches_up 2 30 || fail "the bridges never came up"
ovs_vsctl del-controller br2
wait_rest_metric ofcd_switches_up 1 30 || fail "br2 did not go down"

"$PY" "$here/../contract/kytos_contract.py" "$here/../contract/kytos_flow_manager.json" \
    http://127.0.0.1:8181 00:00:00:00:00:00:10:01 00:00:00:00:00:00:10:02 ||
    fail "ofcd departs from Kytos-ng's flow_manager contract"
stop_ofcd
pass "kytos_contract: every documented path, method and status as Kytos-ng answers it"
