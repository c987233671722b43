#!/usr/bin/env bash
# Admission and the buffer shares, next to the hostile guard
# (tests/integration/hostile_lib.sh: 20 Open vSwitch bridges with a 1 s
# inactivity probe stay connected, a REST POST is installed during the
# attack, ofcd's RSS stays bounded):
#   burst       10,000 emulated switches from one address connect at once, as
#               a lab does: every one reaches ESTABLISHED at its first attempt,
#               none refused, reset or evicted
#   pool-squat  from one address, 40 connections that send HELLO and then
#               1,100 PACKET_INs of 600 bytes each (each needs a large buffer)
#               without ever answering FEATURES, and 8 connections that flood
#               ECHO_REQUESTs and never read: short of ESTABLISHED, each holds
#               its small pending share (one large buffer at most), the pool's
#               large buffers stay available, and the squatters are cut off at
#               the handshake timeout
#
# usage: hostile_admission.sh OFCD_BINARY CONFIG_FILE EMULATOR
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

# 10,000 sockets in one emulator (it raises its own soft limit up to this).
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 10100 ] ||
    fail "the open-file limit ($(ulimit -Hn)) is below the 10,000 switches' sockets"
# The burst's 10,000 SYNs, HELLOs and FEATURES_REPLYs reach ofcd through the
# tap's Linux queue, which drops frames when the kernel fills it faster than
# the io lcore drains it on this shared 2-core machine (tens of thousands of
# TX drops seen in `ip -s link show ofc0`); each drop costs the switch a TCP
# retransmission, and two or three back-offs can pass the shipped 2 s HELLO
# timeout. What the burst tests is admission (every switch admitted, none
# refused, reset or evicted), not the rig's queue: so HELLO may take 10 s.
hostile_setup hostile_admission --openflow.hello_timeout_ms=10000
PEER="python3 $here/hostile_peer.py"
SQUATTER=10.66.0.11
# The lab's address: a fresh one, so all its ephemeral ports are free. The
# kernel keeps each closed connection in TIME_WAIT for a minute, and a
# connect() from a port whose connection to 10.66.0.2:6653 is still there
# fails (EADDRNOTAVAIL): a run started within a minute of the last one, on
# the same address, saw a thousand such "retries". So a different address
# each run.
LAB=10.66.0.$((100 + RANDOM % 150))
for a in $SQUATTER $LAB; do ip addr add "$a/24" dev ofc0 || fail "cannot add $a"; done

counter() { rest_metric "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"; }
worker_total() { rest_metric "ofcd_openflow_worker_total{lcore=\"0\",what=\"$1\"}"; }

# sample_min NAME FILE: the smallest value /metrics shows for NAME, every
# 0.2 s, written to FILE, until the file STOP exists next to it.
sample_min() {
    local min=-1 v
    while [ ! -e "$2.stop" ]; do
        v=$(rest_metric "$1")
        v=${v%.*}
        if [ "$min" -lt 0 ] || [ "$v" -lt "$min" ]; then min=$v; fi
        echo "$min" >"$2"
        sleep 0.2
    done
}

# ---- burst ------------------------------------------------------------------------
evicted0=$(counter pending_evicted)
refused0=$(( $(counter refused_table_full) + $(counter refused_no_event_buffer) +
             $(counter refused_addr_table) ))
HOSTILE_POST_AFTER=3 hostile_attack burst 400 "$EMU" --controller 10.66.0.2:6653 --bind $LAB \
    --switches 10000 --connect-rate 0 --dpid-base 0x500000 --duration 40 \
    --echo-interval 5000 --quiet --json "$work/burst.json"
j=$work/burst.json
hs=$(jq .switches.handshaked "$j")
attempts=$(jq .connect.attempts "$j")
downs=$(jq .disconnects.total "$j")
evicted=$(( $(counter pending_evicted) - evicted0 ))
refused=$(( $(counter refused_table_full) + $(counter refused_no_event_buffer) +
            $(counter refused_addr_table) - refused0 ))
tap_drops() { ip -s link show ofc0 | awk '/TX:/ { getline; print $4 }'; }
[ "$hs" = 10000 ] || fail "burst: $hs of 10000 switches reached ESTABLISHED (tap TX drops: $(tap_drops))"
[ "$attempts" = 10000 ] ||
    fail "burst: $attempts connection attempts for 10000 switches (retries; tap TX drops:" \
         "$(tap_drops); the switches' disconnects: $(jq -c .disconnects "$j"))"
[ "$downs" = 0 ] || fail "burst: $downs disconnects seen by the switches"
[ "$evicted" = 0 ] && [ "$refused" = 0 ] ||
    fail "burst: ofcd evicted $evicted and refused $refused of the connections"
pass "burst: 10000 switches from one address, all ESTABLISHED at the first attempt" \
    "(handshake p50 $(jq .times_us.handshake.p50 "$j") us, p99 $(jq .times_us.handshake.p99 "$j") us), 0 refused"

# ---- pool squatters -----------------------------------------------------------------
pending_paused0=$(counter pending_paused)
quota_paused0=$(counter quota_paused)
timeouts0=$(worker_total handshake_timeouts)
sample_min 'ofcd_msg_buffers_large_free{pool="switches"}' "$work/large_free" &
sampler=$!
hostile_attack pool-squat 96 bash -c "
    $PEER pin-squat --conns 40 --count 1100 --msg-len 600 --bind $SQUATTER --duration 14 &
    $PEER echo-flood --conns 8 --rcvbuf 1024 --bind $SQUATTER --duration 14 &
    wait"
touch "$work/large_free.stop"
wait "$sampler"
min_large=$(cat "$work/large_free")
# 512 large buffers in the shipped pool; the 48 attackers are short of
# ESTABLISHED, so each may hold one at most (a handful more for the bridges'
# statistics replies).
[ "$min_large" -ge $((512 - 48 - 8)) ] ||
    fail "pool-squat: only $min_large large buffers left free: the attackers held more than one each"
[ "$(counter pending_paused)" -gt "$pending_paused0" ] ||
    [ "$(counter quota_paused)" -gt "$quota_paused0" ] ||
    fail "pool-squat: ofcd never stopped reading a squatter"
cut=$(( $(worker_total handshake_timeouts) - timeouts0 ))
[ "$cut" -ge 40 ] || fail "pool-squat: $cut of the 40 squatters cut off at the handshake timeout"
pass "pool-squat: the attackers held one large buffer each at most (fewest free: $min_large of 512)," \
    "quota_paused +$(( $(counter quota_paused) - quota_paused0 )), pending_paused" \
    "+$(( $(counter pending_paused) - pending_paused0 )); 40 squatters cut off at the handshake timeout"

stop_ofcd
pass "clean stop after the attacks"
