#!/usr/bin/env bash
# An off-path attacker against the bridges' own TCP connections (RFC 5961,
# CVE-2016-5696) must cost them nothing and get little back: it knows each
# connection's ports, not its sequence numbers, and spoofs RSTs, SYNs and
# ACKs at random sequence numbers from the bridges' address
# (hostile_tcp_spoof.py), thousands a second, next to the hostile guard
# (tests/integration/hostile_lib.sh: 20 Open vSwitch bridges with a 1 s
# inactivity probe stay connected, a REST POST is installed meanwhile,
# ofcd's RSS bounded). Checked besides: no bridge is reset; ofcd answers at
# most one invalid segment per connection per tcp.invalid_ack_interval_ms
# (500 ms) and counts the rest (invalid_ack_limited), so neither the bridges'
# kernel (duplicate ACKs) nor the attacker (a count to read) gets one ACK
# per spoofed segment.
#
# usage: hostile_tcp.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/hostile_lib.sh"
require_root
require_tool jq
require_tool ss

hostile_setup hostile_tcp
tcp_total() { rest_metric "ofcd_tcp_total{lcore=\"0\",what=\"$1\"}"; }

# The bridges' side of their connections: what an off-path attacker can
# learn (or guess: ephemeral ports are few) without seeing a segment.
ports=$(ss -Htn state established dst 10.66.0.2 dport = :6653 |
    awk '{ n = split($3, a, ":"); print a[n] }' | paste -sd, -)
conns=$(echo "$ports" | tr ',' '\n' | grep -c .)
[ "$conns" -ge "$N" ] || fail "found $conns bridge connections, expected $N"

DURATION=12
RATE=3000
oow0=$(tcp_total drop_out_of_window)
lim0=$(tcp_total invalid_ack_limited)
chal0=$(tcp_total challenge_acks)
reset0=$(tcp_total conns_reset)
hostile_attack spoof 64 python3 "$here/hostile_tcp_spoof.py" --src 10.66.0.1 --dst 10.66.0.2 \
    --dport 6653 --sports "$ports" --rate $RATE --duration $DURATION
oow=$(($(tcp_total drop_out_of_window) - oow0))
lim=$(($(tcp_total invalid_ack_limited) - lim0))
chal=$(($(tcp_total challenge_acks) - chal0))
resets=$(($(tcp_total conns_reset) - reset0))

# Two thirds of the segments are SYNs and ACKs, nearly all out of the window.
[ "$oow" -ge $((RATE * DURATION / 2)) ] ||
    fail "only $oow out-of-window segments counted: the attack did not reach ofcd"
[ "$resets" = 0 ] || fail "$resets connections reset by spoofed RSTs"
# What was answered: at most one per connection per 500 ms over the attack
# (and the few seconds of the guard's checks after it).
answered=$((oow - lim))
bound=$((conns * 2 * (DURATION + 10)))
[ "$answered" -le "$bound" ] ||
    fail "$answered of $oow invalid segments answered (bound $bound: one per 500 ms per connection)"
pass "$oow spoofed out-of-window segments: $answered answered, $lim counted unanswered; $chal challenge ACKs; no connection reset"
