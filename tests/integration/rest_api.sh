#!/usr/bin/env bash
# The read-only REST API with three OVS bridges connected: the switch list
# and one switch (with ports) as JSON, health, Prometheus metrics, and JSON
# errors (404 unknown path or dpid, 400 bad dpid, 405 wrong method).
#
# usage: rest_api.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup rest
API=http://127.0.0.1:8181

# get PATH [EXPECTED_STATUS]: body on stdout; fails on another status.
get() {
    local path=$1 want=${2:-200} code
    code=$(curl -s -o "$work/body" -w '%{http_code}' "$API$path") || fail "curl $path"
    [ "$code" = "$want" ] || { cat "$work/body"; fail "GET $path: status $code, expected $want"; }
    cat "$work/body"
}

start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=1
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 3 tcp:10.66.0.2:6653 1000 || fail "cannot create bridges"
wait_stat "$work/ofcd.log" "switches_up" 3 30 || fail "bridges did not establish"

# The control thread's view follows within its 10 ms wake-up; poll briefly.
for _ in $(seq 50); do
    [ "$(get /api/v1/switches | jq '[.switches[] | select(.connected)] | length')" = 3 ] && break
    sleep 0.1
done
n=$(get /api/v1/switches | jq '[.switches[] | select(.connected)] | length')
[ "$n" = 3 ] || fail "/api/v1/switches lists $n connected switches, expected 3"
pass "/api/v1/switches: 3 connected"

sw=$(get /api/v1/switches/00:00:00:00:00:00:10:02)
[ "$(echo "$sw" | jq -r .dpid)" = "00:00:00:00:00:00:10:02" ] || fail "wrong dpid: $sw"
[ "$(echo "$sw" | jq -r .description.hardware)" = "Open vSwitch" ] || fail "no DESC: $sw"
[ "$(echo "$sw" | jq '.ports | length')" -ge 1 ] || fail "no ports: $sw"
[ "$(echo "$sw" | jq -r '.ports[] | select(.name == "br2") | .link')" != "" ] ||
    fail "LOCAL port br2 missing: $sw"
[ "$(get /api/v1/switches/4098 | jq -r .dpid)" = "00:00:00:00:00:00:10:02" ] ||
    fail "decimal dpid not accepted"
pass "/api/v1/switches/{dpid}: description and ports (hex and decimal dpid)"

[ "$(get /api/v1/health | jq -r .status)" = ok ] || fail "health not ok"
[ "$(get /api/v1/health | jq '.lcores[0].alive')" = true ] || fail "lcore 0 not alive"
[ "$(get /api/v1/health | jq '.store.writable')" = true ] || fail "store not writable"
pass "/api/v1/health: ok, lcores alive, store writable"

m=$(get /metrics)
echo "$m" | grep -q '^ofcd_switches_up 3$' || fail "metrics: ofcd_switches_up"
echo "$m" | grep -q '^ofcd_switch_connected{dpid="00:00:00:00:00:00:10:03"} 1$' ||
    fail "metrics: per-switch connected"
echo "$m" | grep -qE '^ofcd_ring_depth\{lcore="0",ring="msg_in",class="P0"\} [0-9]+$' ||
    fail "metrics: ring depth"
echo "$m" | grep -qE '^ofcd_tcp_connections\{lcore="0"\} 3$' || fail "metrics: tcp connections"
# The REST latency histogram: its bounds in order, and the +Inf bucket holds
# every request counted.
les=$(echo "$m" | sed -n 's/^ofcd_rest_request_seconds_bucket{le="\([^"]*\)"} .*/\1/p' |
      paste -sd' ')
[ "$les" = "0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 1 +Inf" ] ||
    fail "metrics: REST latency buckets are '$les'"
inf=$(echo "$m" | sed -n 's/^ofcd_rest_request_seconds_bucket{le="+Inf"} //p')
count=$(echo "$m" | sed -n 's/^ofcd_rest_request_seconds_count //p')
[ -n "$count" ] && [ "$count" -gt 0 ] && [ "$inf" = "$count" ] ||
    fail "metrics: REST latency +Inf bucket $inf, count $count"
pass "/metrics: switches, rings, TCP, REST latency in Prometheus text"

[ "$(get /api/v1/nothing 404 | jq .code)" = 404 ] || fail "404 not JSON"
[ "$(get /api/v1/switches/00:00:00:00:00:00:99:99 404 | jq .code)" = 404 ] ||
    fail "unknown dpid not 404"
[ "$(get /api/v1/switches/xyz 400 | jq -r .description)" != null ] || fail "bad dpid not 400"
code=$(curl -s -o "$work/body" -w '%{http_code}' -X DELETE "$API/api/v1/switches")
[ "$code" = 405 ] && [ "$(jq .code "$work/body")" = 405 ] || fail "DELETE not 405: $code"
pass "errors are JSON: 404, 400, 405"
stop_ofcd
echo "rest_api: all checks passed"
