#!/usr/bin/env bash
# Hostile peers must cost the good switches nothing (tests/integration/
# hostile_lib.sh holds the guard). 20 Open vSwitch bridges
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
. "$here/hostile_lib.sh"
require_root
require_tool jq

hostile_setup hostile
PEER="python3 $here/hostile_peer.py"
# Addresses of their own for the attackers that need many connections (the
# admission bound per source address is not what partial-flood tests).
ATTACKERS=10.66.0.11,10.66.0.12,10.66.0.13
for a in ${ATTACKERS//,/ }; do ip addr add "$a/24" dev ofc0 || fail "cannot add $a"; done

# attack NAME MAX_RSS_GROWTH_MB PEER_ARGS...: the Python peer (or, with
# EMU_ATTACK set, the emulator) for 12 s against the bridges' guard.
attack() {
    local name=$1 max_mb=$2
    shift 2
    if [ -n "${EMU_ATTACK:-}" ]; then
        hostile_attack "$name" "$max_mb" "$EMU" --controller 10.66.0.2:6653 --quiet \
            --json "$work/$name.json" "$@" --duration 12
    else
        hostile_attack "$name" "$max_mb" $PEER "$@" --duration 12
    fi
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
paused0=$(io_total quota_paused)
evicted0=$(io_total recorder_evicted)
EMU_ATTACK=1 attack emu-echo-flood 64 --attack echo-flood --switches 8 --dpid-base 0x300000
[ "$(jq .attack.messages_sent "$work/emu-echo-flood.json")" -gt 10000 ] ||
    fail "emu-echo-flood: the emulator flooded $(jq .attack.messages_sent "$work/emu-echo-flood.json") messages"
[ "$(io_total quota_paused)" -gt "$paused0" ] || fail "emu-echo-flood: ofcd never had to stop reading"
# Each flooder's flight record rolled over within its own slot (RSS bound above).
[ "$(io_total recorder_evicted)" -gt "$evicted0" ] ||
    fail "emu-echo-flood: the flight records never rolled over (recorder_evicted $(io_total recorder_evicted))"
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
