#!/usr/bin/env bash
# Hostile peers must cost the good switches nothing. 20 Open vSwitch bridges
# (1 s inactivity probe) are connected to ofcd; during each attack they must
# all stay connected (no disconnect in ofcd's log, OVS still connected), a
# REST POST must get its 202 and be installed on a bridge, and ofcd's RSS
# must stay bounded. Attacks (tests/integration/hostile_peer.py):
#   echo-flood   8 connections that never read and flood ECHO_REQUESTs
#   silent       many connections that never send a byte
#   hello-flood  HELLO, then thousands of messages waiting for a handshake
#                that never ends
#   port-flood   a switch that handshakes, then PORT_STATUS for ever-new ports
#                and multipart replies that never finish
#   dpid-thief   a connection claiming a live bridge's dpid (it must be
#                refused: the bridge answers the echo ofcd sends it)
#   partial-flood  1,200 switches (from three addresses) that handshake, then
#                each pin a whole TCP receive window with a message that never
#                ends: more than the io lcore's TCP chunk pool holds
# and the switch emulator's own attack modes (ofswitch-emu --attack), each
# checked to have attacked: echo-flood (ofcd stopped reading them),
# hello-flood (their held messages filled their share, then the handshake
# timeout cut them off), partial (50 emulated switches leave half a message
# each, and ofcd closes every one of them when they go, instead of keeping
# the half message until a timeout).
#
# usage: hostile.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup hostile
N=20
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
PEER="python3 $here/hostile_peer.py"

ovs_start "$work/ovs" || fail "cannot start Open vSwitch"
start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0
ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || fail "cannot add bridges"
wait_rest_metric ofcd_switches_up $N 30 || fail "the $N bridges never all came up"
pass "$N bridges established"
# Addresses of their own for the attackers that need many connections (the
# admission bound per source address is not what partial-flood tests).
ATTACKERS=10.66.0.11,10.66.0.12,10.66.0.13
for a in ${ATTACKERS//,/ }; do ip addr add "$a/24" dev ofc0 || fail "cannot add $a"; done

# Disconnects of the bridges (dpids 0x1001..0x1014), not of the attackers.
good_downs() { grep -cE 'switch 00000000000010(0[1-9a-f]|1[0-4]) disconnected after' "$work/ofcd.log"; }

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$OFCD_PID/status"; }

# attack NAME MAX_RSS_GROWTH_MB PEER_ARGS...: run the peer for 12 s (the
# Python peer, or with EMU_ATTACK set, the emulator with those args); during
# it a flow goes in through REST; afterwards every bridge is still up, the
# flow is on its bridge, nothing disconnected, RSS grew less than the bound.
flow_no=0
attack() {
    local name=$1 max_mb=$2
    shift 2
    local before_down rss0 rss1 dp br code
    before_down=$(good_downs)
    rss0=$(rss_kb)
    if [ -n "${EMU_ATTACK:-}" ]; then
        "$EMU" --controller 10.66.0.2:6653 --quiet --json "$work/$name.json" "$@" \
            --duration 12 >"$work/$name.out" 2>&1 &
    else
        $PEER "$@" --duration 12 >"$work/$name.out" 2>&1 &
    fi
    local peer=$!
    sleep 4                                   # the attack is under way
    flow_no=$((flow_no + 1))
    br=$(( (flow_no % N) + 1 ))
    dp=$(printf '00:00:00:00:00:00:%02x:%02x' $(( (0x1000 + br) >> 8 )) $(( (0x1000 + br) & 255 )))
    code=$(curl -s -o "$work/$name.body" -w '%{http_code}' -H 'Content-Type: application/json' \
        -d "{\"flows\": [{\"priority\": 777, \"match\": {\"in_port\": $flow_no},
             \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}]}" "$FM/flows/$dp")
    [ "$code" = 202 ] || { cat "$work/$name.body"; fail "$name: REST POST got $code"; }
    wait "$peer"
    cat "$work/$name.out"
    ovs_wait_flow "br$br" "priority=777,in_port=$flow_no " ||
        fail "$name: the flow never reached br$br"
    rss1=$(rss_kb)
    [ "$(good_downs)" = "$before_down" ] || {
        grep 'disconnected after' "$work/ofcd.log" | tail -5
        kill -USR1 "$OFCD_PID"                # the counters, for whoever reads the log
        sleep 0.5
        grep -E 'lcore=0 (tcp|openflow_io|lcore):' "$work/ofcd.log" | tail -3
        fail "$name: good switches disconnected"
    }
    # The attackers that were switches leave when the peer exits.
    wait_rest_metric ofcd_switches_up $N 15 || fail "$name: $(rest_metric ofcd_switches_up) up, not $N"
    # OVS's own view too. Its database refreshes a controller's status on
    # its own schedule (it lagged once in CI right after partial-flood while
    # ofcd had seen no disconnect): a few seconds to agree; a disconnect
    # would have shown in good_downs above.
    ovs_wait_connected $N 10 || {
        grep -E 'rconn|connection|inactivity' "$OVS_DIR/vswitchd.log" | tail -8
        fail "$name: OVS sees $(ovs_connected_count) of $N connected"
    }
    [ $(( (rss1 - rss0) / 1024 )) -lt "$max_mb" ] ||
        fail "$name: RSS grew from $((rss0 / 1024)) to $((rss1 / 1024)) MiB (bound $max_mb MiB)"
    pass "$name: $N bridges up throughout, flow installed on br$br, RSS $((rss0 / 1024)) -> $((rss1 / 1024)) MiB"
    # ofcd sheds what is left of the attack (at the latest at the echo
    # timeout, 20 s), so the next attack starts against the bridges alone.
    wait_rest_metric 'ofcd_openflow_io_switch_conns{lcore="0"}' $N 40 ||
        fail "$name: attackers' connections still open 40 s after the attack"
}

attack echo-flood 64 echo-flood --conns 8 --rcvbuf 1024
attack silent 64 silent --conns 2000
attack hello-flood 64 hello-flood --conns 8
attack port-flood 64 port-flood --conns 1 --dpid beef
grep -q 'switch 000000000000beef.*more than openflow.max_ports' "$work/ofcd.log" ||
    fail "port-flood: the flooding switch was not cut off at openflow.max_ports"
pass "port-flood: the flooding switch was cut off at openflow.max_ports"
attack dpid-thief 64 dpid-thief --conns 1 --dpid 1001
grep -q 'claims the dpid of live connection.*refusing the newcomer' "$work/ofcd.log" ||
    fail "dpid-thief: no refusal of the newcomer logged"
pass "dpid-thief: the newcomer was refused, logged with both peers"


# The emulator's attack modes: each must have attacked, not just connected.
io_total() { rest_metric "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"; }
paused0=$(io_total quota_paused)
EMU_ATTACK=1 attack emu-echo-flood 64 --attack echo-flood --switches 8 --dpid-base 0x300000
[ "$(jq .attack.messages_sent "$work/emu-echo-flood.json")" -gt 10000 ] ||
    fail "emu-echo-flood: the emulator flooded $(jq .attack.messages_sent "$work/emu-echo-flood.json") messages"
[ "$(io_total quota_paused)" -gt "$paused0" ] || fail "emu-echo-flood: ofcd never had to stop reading"
pass "emu-echo-flood: $(jq .attack.messages_sent "$work/emu-echo-flood.json") echo requests, ofcd stopped reading them"
cut0=$(grep -c 'closed before FEATURES: handshake timeout' "$work/ofcd.log")
paused0=$(io_total quota_paused)
EMU_ATTACK=1 attack emu-hello-flood 64 --attack hello-flood --switches 8 --dpid-base 0x310000
[ "$(io_total quota_paused)" -gt "$paused0" ] ||
    fail "emu-hello-flood: ofcd never had to stop reading what waits for the handshake"
[ "$(grep -c 'closed before FEATURES: handshake timeout' "$work/ofcd.log")" -gt "$cut0" ] ||
    fail "emu-hello-flood: no connection was cut off at the handshake timeout"
pass "emu-hello-flood: what they held filled their share (not read on), cut off at the handshake timeout"
mid0=$(grep -c 'closed the connection in the middle of a message' "$work/ofcd.log")
EMU_ATTACK=1 attack emu-partial 64 --attack partial --switches 50 --echo-interval 0 \
    --dpid-base 0x320000
mid=$(( $(grep -c 'closed the connection in the middle of a message' "$work/ofcd.log") - mid0 ))
[ "$mid" -ge 50 ] || fail "emu-partial: $mid of the 50 half messages were let go when their switches left"
pass "emu-partial: 50 half messages, each let go the moment its switch left"

# 400 half messages a second: the pool fills within the attack, the tap's
# queue is not what overflows (it drops every sender's frames alike).
attack partial-flood 160 partial-flood --conns 1200 --dpid 20000 --bind $ATTACKERS --rate 400
shares=$(rest_metric 'ofcd_tcp_total{lcore="0",what="drop_chunk_share"}')
[ "${shares%.*}" -gt 0 ] || fail "partial-flood: the chunk pool never ran short (drop_chunk_share 0)"
pass "partial-flood: the big holders' segments were dropped ($shares), the bridges' were not"

stop_ofcd
pass "clean stop after the attacks"
