#!/usr/bin/env bash
# The switch emulator's loopback self-test against ofcd: 200 emulated
# switches connect at once, echo every 200 ms both ways, flap a port every
# second, and take 50 flows each on 5 of them through the REST flow API.
# From the emulator's own report: every switch handshaked and still up at
# the end, no disconnect, every echo it sent answered, no FLOW_MOD it
# rejected, and its flow tables hold exactly the 250 flows ofcd confirmed
# installed; from ofcd: every port flap reached its switch model.
# Run twice: the default placement (one lcore doing io and worker), then two
# io lcores (two tap queues, RSS) and two workers on two EAL lcores, so the
# multi-lcore paths (MP rings, connection → worker hash) are exercised.
# First, flow-statistics replies in parts of 65,520 bytes (big_parts), and a
# packet_in flood from the moment the switches connect (packet_in_flood).
#
# usage: emu_ofcd.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool jq

it_setup emu-ofcd
API=http://127.0.0.1:8181
N=200

# run_case NAME OFCD_ARGS...: one full run against an ofcd started with them.
run_case() {
local name=$1
shift
rm -rf "$work/var"
start_ofcd "$work/ofcd-$name.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=2 --flow_manager.pacing_per_s=0 \
    --openflow.rtt_probe_ms=1000 "$@"
echo "-- placement: $name"
"$EMU" --controller 10.66.0.2:6653 --switches $N --connect-rate 0 --echo-interval 200 \
    --port-flap-interval 1000 --dpid-base 4096 --duration 12 --quiet \
    --json "$work/emu-$name.json" >"$work/emu-$name.out" 2>&1 &
epid=$!
it_on_exit "kill -INT $epid"
for _ in $(seq 100); do
    n=$(curl -s "$API/api/v1/switches" | jq '[.switches[] | select(.connected)] | length')
    [ "$n" = $N ] && break
    sleep 0.1
done
[ "$n" = $N ] || fail "$n of $N emulated switches up in ofcd's view"
pass "$N emulated switches established"

flows=$(seq 0 49 | awk 'BEGIN { printf "[" } { if (NR > 1) printf ",";
    printf "{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.9.0.%d\"}, \"actions\": [{\"action_type\": \"output\", \"port\": 1}]}", $1 }
    END { printf "]" }')
body="{"
for i in 1 2 3 4 5; do
    body+="\"$(printf '%016x' $((4096 + i * 7)))\": {\"flows\": $flows},"
done
body="${body%,}}"
code=$(curl -s -o "$work/post" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "$API/api/kytos/flow_manager/v2/flows_by_switch")
[ "$code" = 202 ] || fail "flows_by_switch: $code $(cat "$work/post")"
wait_rest_metric 'ofcd_flows{state="installed"}' 250 10 || fail "not all 250 flows confirmed installed"
pass "250 flows on 5 emulated switches confirmed by barrier"

# The switches are never silent (their own echoes every 200 ms), yet ofcd
# measures each one's RTT with its 1 s probe.
for _ in $(seq 50); do
    rtt=$(curl -s "$API/api/v1/switches/0000000000001010" | jq '.echo_rtt_ms.last // empty')
    [ -n "$rtt" ] && break
    sleep 0.1
done
[ -n "$rtt" ] || fail "no echo RTT measured on a busy switch"
for _ in $(seq 50); do
    [ "$(rest_metric ofcd_echo_rtt_seconds_count)" -ge $N ] && break
    sleep 0.1
done
[ "$(rest_metric ofcd_echo_rtt_seconds_count)" -ge $N ] ||
    fail "ofcd_echo_rtt_seconds_count $(rest_metric ofcd_echo_rtt_seconds_count) < $N"
pass "echo RTT measured on busy switches: $rtt ms (REST), histogram in /metrics"

wait "$epid"
r=$work/emu-$name.json
[ -s "$r" ] || { cat "$work/emu-$name.out"; fail "no emulator report"; }
[ "$(jq .switches.handshaked_at_end "$r")" = $N ] || fail "switches up at the end: $(jq .switches "$r")"
[ "$(jq .disconnects.total "$r")" = 0 ] || fail "disconnects: $(jq -c .disconnects "$r")"
sent=$(jq .echo.requests_sent "$r")
got=$(jq .echo.replies "$r")
# A request sent in the last instant may still be in flight when the run stops.
[ "$sent" -gt $((N * 40)) ] && [ $((sent - got)) -le $N ] ||
    fail "echo: $sent sent, $got answered"
[ "$(jq .flow_mods.failed "$r")" = 0 ] || fail "the emulator rejected FLOW_MODs: $(jq -c .errors_sent "$r")"
[ "$(jq .flow_table.total "$r")" = 250 ] || fail "emulated flow tables hold $(jq .flow_table.total "$r") flows, expected 250"
pass "emulator: all up, 0 disconnects, $got/$sent echoes answered, flow tables hold the 250 flows"
flaps=$(jq .port_status_sent "$r")
[ "$flaps" -gt 0 ] || fail "the emulator flapped no port"
for _ in $(seq 50); do
    seen=$(curl -s "$API/api/v1/switches" | jq '[.switches[].counters.port_status] | add')
    [ "$seen" -ge "$flaps" ] && break
    sleep 0.1
done
[ "$seen" -ge "$flaps" ] || fail "ofcd's switch view saw $seen PORT_STATUS of the $flaps flaps"
pass "ofcd took every one of the $flaps port flaps"
stop_ofcd
}

# Flow-statistics replies as full as Open vSwitch's: one emulated switch
# packs its parts up to 65,535 bytes, and 5,000 flows whose entries are 184
# bytes each make every full part exactly 65,520 bytes. They must reach the
# worker and the flow manager whole: GET flows shows all 5,000 from the
# switch's own replies, and the consistency check, run on them, finds
# nothing missing and nothing alien; no part is dropped.
big_parts() {
rm -rf "$work/var"
start_ofcd "$work/ofcd-parts.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=2 --flow_manager.pacing_per_s=0 \
    --flow_manager.consistency_min_interval_s=1
echo "-- flow-statistics parts of 65,520 bytes"
"$EMU" --controller 10.66.0.2:6653 --switches 1 --connect-rate 0 --echo-interval 1000 \
    --mp-limit 65535 --dpid-base 8192 --duration 40 --quiet --json "$work/emu-parts.json" \
    >"$work/emu-parts.out" 2>&1 &
local epid=$!
it_on_exit "kill -INT $epid"
local dp=00:00:00:00:00:00:20:00 fm=$API/api/kytos/flow_manager/v2 n code
wait_rest_metric ofcd_switches_up 1 10 || fail "the emulated switch did not come up"
python3 -c 'import json
print(json.dumps({"flows": [{"priority": 100, "match": {"in_port": 1,
    "dl_src": "00:00:00:00:00:01", "dl_dst": "00:00:00:00:00:02", "dl_vlan": 100,
    "dl_vlan_pcp": 3, "dl_type": 34525, "nw_proto": 6, "ipv6_src": "2001:db8::1",
    "ipv6_dst": "2001:db8::2", "tp_src": i, "tp_dst": 80},
    "actions": [{"action_type": "output", "port": 2}]} for i in range(1, 5001)]}))' \
    >"$work/parts.json"
code=$(curl -s -o "$work/post" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$work/parts.json" "$fm/flows/$dp")
[ "$code" = 202 ] || fail "POST 5,000 flows: $code $(cat "$work/post")"
wait_rest_metric 'ofcd_flows{state="installed"}' 5000 60 || fail "the 5,000 flows were not installed"
for _ in $(seq 100); do
    n=$(curl -s "$fm/flows/$dp" | jq ".\"$dp\".flows | length")
    [ "$n" = 5000 ] && break
    sleep 0.2
done
[ "$n" = 5000 ] || fail "GET flows shows $n of the switch's 5,000 flows"
sleep 3                                      # a verdict window on the full snapshot
kill -INT $epid
wait $epid
local max
max=$(jq .multipart.reply_max_bytes "$work/emu-parts.json")
[ "$max" -ge 65520 ] && [ "$max" -le 65535 ] || fail "the largest part was $max bytes"
for what in mp_oversized mp_unsolicited events_lost; do
    [ "$(rest_metric "ofcd_openflow_worker_total{lcore=\"0\",what=\"$what\"}")" = 0 ] ||
        fail "worker $what: $(rest_metric "ofcd_openflow_worker_total{lcore=\"0\",what=\"$what\"}")"
done
for what in missing_reinstalled alien_deleted snapshot_oversized; do
    [ "$(rest_metric "ofcd_flow_manager_total{what=\"$what\"}")" = 0 ] ||
        fail "flow manager $what: $(rest_metric "ofcd_flow_manager_total{what=\"$what\"}")"
done
[ "$(rest_metric 'ofcd_flow_manager_total{what="checks"}')" -gt 0 ] || fail "no consistency check ran"
pass "5,000 flows in parts of up to $max bytes: all seen, checked, nothing reinstalled or dropped"
stop_ofcd
}

# The learning switch answering 16 switches that flood PACKET_INs from the
# moment they are connected (window 64): those sent before ofcd's handshake
# with them ends are let go past the small pending share instead of holding
# up the replies behind them, so the handshakes end at once and the flood
# is answered (it once waited for the 10 s handshake timeout: none answered).
packet_in_flood() {
    rm -rf "$work/var"
    start_ofcd "$work/ofcd-pin.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
        --app.stats_log_interval_s=0 --apps.l2_learning=true
    "$EMU" --controller 10.66.0.2:6653 --switches 16 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --dpid-base 0x8000 --duration 4 --quiet --json "$work/emu-pin.json" \
        >"$work/emu-pin.out" 2>&1 || { cat "$work/emu-pin.out"; fail "the emulator failed"; }
    local r=$work/emu-pin.json resp
    resp=$(jq .packet_in.responses "$r")
    [ "$(jq .switches.handshaked_at_end "$r")" = 16 ] && [ "$(jq .disconnects.total "$r")" = 0 ] ||
        fail "packet_in flood: $(jq -c '[.switches, .disconnects]' "$r")"
    [ "$resp" -gt 10000 ] || fail "packet_in flood: $resp answered in 4 s"
    pass "packet_in flood from connect: $resp answered in 4 s," \
        "$(rest_metric 'ofcd_openflow_io_total{lcore="0",what="early_packet_ins_dropped"}')" \
        "let go before the handshakes ended"
    stop_ofcd
}

big_parts
packet_in_flood
run_case "one lcore (io+worker)"
run_case "2 io + 2 workers on 2 lcores" \
    "--eal.args=--no-huge -m 512 --no-pci --vdev=net_tap0,iface=ofc0 --file-prefix=ofcd -l 0-1" \
    --lcores.io=0,1 --lcores.worker=0,1
pass "emu_ofcd: all checks passed"
