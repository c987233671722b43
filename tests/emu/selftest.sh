#!/bin/bash
# selftest.sh - ofswitch-emu against a real controller: Open vSwitch's ovs-testcontroller
# (a learning switch, Debian package openvswitch-testcontroller) on a loopback port.
#
# Usage: selftest.sh PATH-TO-ofswitch-emu
# Runs 8 emulated switches for a few seconds in latency and then throughput packet_in mode
# and checks from the emulator's JSON that all 8 completed the handshake, echo RTTs were
# measured, packet_ins were answered (PACKET_OUT/FLOW_MOD) and learned flows landed in
# every switch's flow table.  Bounded in time (timeout on every run); the controller is
# killed on any exit.  Exit 77 (meson: skipped) when a needed tool is missing.
set -u

EMU=${1:?usage: selftest.sh PATH-TO-ofswitch-emu}
SWITCHES=8
RUN_S=3

for tool in ovs-testcontroller jq ss timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: $tool not installed (apt-get install openvswitch-testcontroller jq iproute2)"
        exit 77
    fi
done

WORK=$(mktemp -d /tmp/ofswitch-emu-selftest.XXXXXX)
CTL_PID=""

cleanup() {
    if [ -n "$CTL_PID" ]; then
        kill "$CTL_PID" 2>/dev/null
        wait "$CTL_PID" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
    echo "FAIL: $*"
    [ -f "$WORK/tc.log" ] && tail -n 20 "$WORK/tc.log"
    exit 1
}

# Start the controller on a free port: a port somebody else holds makes it exit, and we
# try another.  Readiness is its listening socket appearing (polled, bounded).
start_controller() {
    local try port i
    for try in 1 2 3 4 5 6 7 8 9 10; do
        port=$((20000 + (RANDOM % 20000)))
        ovs-testcontroller -O OpenFlow13 "ptcp:$port:127.0.0.1" --no-chdir \
            --unixctl="$WORK/tc.ctl" -vconsole:off -vfile:info --log-file="$WORK/tc.log" &
        CTL_PID=$!
        for i in $(seq 1 50); do
            if ! kill -0 "$CTL_PID" 2>/dev/null; then
                break
            fi
            if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
                PORT=$port
                return 0
            fi
            sleep 0.1
        done
        kill "$CTL_PID" 2>/dev/null
        wait "$CTL_PID" 2>/dev/null
        CTL_PID=""
    done
    return 1
}

check() { # check FILE JQ-EXPR WHAT
    if [ "$(jq -r "$2" "$1")" != "true" ]; then
        fail "$3 ($2) in $(basename "$1")"
    fi
}

run_mode() { # run_mode MODE EXTRA-ARGS...
    local mode=$1 json="$WORK/$1.json"
    shift
    timeout $((RUN_S + 30)) "$EMU" --controller "127.0.0.1:$PORT" --switches "$SWITCHES" \
        --ports 4 --duration "$RUN_S" --mode "$mode" --echo-interval 200 \
        --connect-rate 200 --json "$json" --quiet "$@"
    local rc=$?
    [ $rc -eq 0 ] || fail "ofswitch-emu --mode $mode exited with $rc"
    check "$json" ".switches.handshaked == $SWITCHES" "not every switch completed the handshake"
    check "$json" ".times_us.handshake.count >= $SWITCHES" "handshake times missing"
    check "$json" ".times_us.echo_rtt.count > 0" "no echo RTT measured"
    check "$json" ".packet_in.responses > 0" "no packet_in answered"
    check "$json" ".times_us.packet_in_latency.count == .packet_in.responses" \
        "latency samples and responses disagree"
    # Beyond its table-miss flow, every switch must hold a learned flow.
    check "$json" ".flow_table.per_switch_min >= 2" "learned flows missing from a switch"
    check "$json" ".flow_mods.received > $SWITCHES" "no learned FLOW_MODs"
    check "$json" ".disconnects.total == 0" "switches disconnected"
    check "$json" "(.errors_sent.by_code | length) == 0 and .errors_sent.other == 0" \
        "the emulator rejected a message of ovs-testcontroller"
    jq -r '"\(.packet_in.mode): handshake p50 \(.times_us.handshake.p50) us, echo rtt p50 " +
           "\(.times_us.echo_rtt.p50) us p99 \(.times_us.echo_rtt.p99) us, packet_in " +
           "responses \(.packet_in.responses) (\(.packet_in.responses_per_sec)/s, p50 " +
           "\(.times_us.packet_in_latency.p50) us), flows/switch \(.flow_table.per_switch_avg)"' \
        "$json"
}

start_controller || fail "ovs-testcontroller did not start listening"
echo "ovs-testcontroller listening on 127.0.0.1:$PORT (pid $CTL_PID)"
run_mode latency
run_mode throughput --window 16
echo "PASS"
