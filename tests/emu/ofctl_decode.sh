#!/bin/bash
# ofctl_decode.sh - checks the emulator's encodings with an independent decoder:
# `ofswitch-emu --dump-replies` runs switch 1 offline through a fixed script of controller
# requests and writes every message it sends; `ovs-ofctl ofp-parse` (Debian package
# openvswitch-common) must decode all of them without error, with the right dpid, ports,
# flows and counts.
#
# Usage: ofctl_decode.sh PATH-TO-ofswitch-emu        Exit 77 (skipped) without ovs-ofctl.
set -u

EMU=${1:?usage: ofctl_decode.sh PATH-TO-ofswitch-emu}
if ! command -v ovs-ofctl >/dev/null 2>&1; then
    echo "SKIP: ovs-ofctl not installed (apt-get install openvswitch-common)"
    exit 77
fi

WORK=$(mktemp -d /tmp/ofswitch-emu-ofctl.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*"
    [ -f "$WORK/parsed.txt" ] && cat "$WORK/parsed.txt"
    exit 1
}

expect() { # expect FIXED-STRING WHAT
    grep -qF -- "$1" "$WORK/parsed.txt" || fail "$2: '$1' not in ovs-ofctl's decoding"
}

timeout 20 "$EMU" --dump-replies "$WORK/replies.bin" --dpid-base 0x1234abcd --ports 3 \
    --tables 4 2>"$WORK/emu.err" || fail "ofswitch-emu --dump-replies: $(cat "$WORK/emu.err")"
timeout 20 ovs-ofctl ofp-parse "$WORK/replies.bin" >"$WORK/parsed.txt" 2>&1 ||
    fail "ovs-ofctl ofp-parse exited with $?"

if grep -q "decode error" "$WORK/parsed.txt"; then
    fail "ovs-ofctl could not decode a message"
fi
# One line per top-level message: 15 in the script.
n=$(grep -cE '^OFP(T|ST)_' "$WORK/parsed.txt")
[ "$n" -eq 15 ] || fail "expected 15 messages, ovs-ofctl decoded $n"

expect "OFPT_HELLO (OF1.3)" "HELLO"
expect "version bitmap: 0x04" "HELLO version bitmap"
expect "OFPT_FEATURES_REPLY (OF1.3)" "FEATURES_REPLY"
expect "dpid:000000001234abcd" "FEATURES_REPLY dpid"
expect "n_tables:4, n_buffers:256" "FEATURES_REPLY tables/buffers"
expect "capabilities: FLOW_STATS TABLE_STATS PORT_STATS" "FEATURES_REPLY capabilities"
expect "OFPST_DESC reply (OF1.3)" "DESC reply"
expect "Serial Num: emu-1" "DESC serial"
expect "OFPST_PORT_DESC reply (OF1.3)" "PORT_DESC reply"
for p in 1 2 3; do
    expect " $p(s1-eth$p): addr:02:34:ab:cd:00:0$p" "PORT_DESC port $p"
done
grep -q " 4(s1-eth4)" "$WORK/parsed.txt" && fail "PORT_DESC lists a port 4 of 3"
[ "$(grep -c 'state:      LIVE' "$WORK/parsed.txt")" -ge 3 ] || fail "ports not LIVE"
expect "speed: 10000 Mbps now, 10000 Mbps max" "port speed"
expect "OFPST_FLOW reply (OF1.3)" "FLOW reply"
expect "priority=100,in_port=1,dl_dst=0a:34:ab:cd:00:02 actions=output:2" "flow 1"
expect "table=0, n_packets=0, n_bytes=0, priority=100," "flow 1 table and counters"
expect "cookie=0xabc" "flow 2 cookie"
expect "idle_timeout=60, send_flow_rem priority=200," "flow 2 timeout and flags"
expect "priority=200,tcp,nw_dst=10.0.0.0/8,tp_dst=80 actions=output:3" "flow 2"
expect "table=1, n_packets=0, n_bytes=0, priority=10,dl_vlan=5 actions=CONTROLLER" "flow 3"
expect "OFPST_AGGREGATE reply (OF1.3) (xid=0x6d): packet_count=0 byte_count=0 flow_count=3" \
    "AGGREGATE reply"
expect "OFPST_TABLE reply (OF1.3)" "TABLE reply"
expect "active=2, lookup=0, matched=0" "TABLE stats of table 0"
expect "OFPST_PORT reply (OF1.3) (xid=0x6f): 3 ports" "PORT_STATS reply"
expect "OFPT_GET_CONFIG_REPLY (OF1.3) (xid=0x70): frags=normal miss_send_len=128" \
    "GET_CONFIG_REPLY"
expect "OFPT_FLOW_REMOVED (OF1.3)" "FLOW_REMOVED"
expect "reason=delete table_id=0 cookie:0xabc" "FLOW_REMOVED fields"
expect "OFPT_ECHO_REPLY (OF1.3) (xid=0x72): 4 bytes of payload" "ECHO_REPLY"
expect "OFPT_BARRIER_REPLY (OF1.3) (xid=0x73)" "BARRIER_REPLY"
expect "OFPT_ROLE_REPLY (OF1.3) (xid=0x74): role=equal" "ROLE_REPLY"
expect "OFPT_PACKET_IN (OF1.3) (xid=0x0): total_len=64 in_port=1 (via no_match)" "PACKET_IN"
expect "data_len=64 buffer=0x00000007" "PACKET_IN buffer"
expect "dl_src=0a:34:ab:cd:00:01,dl_dst=0a:34:ab:cd:00:02" "PACKET_IN frame"
expect "OFPT_PORT_STATUS (OF1.3) (xid=0x0): MOD: 1(s1-eth1)" "PORT_STATUS"
echo "PASS: ovs-ofctl decoded all $n messages"
