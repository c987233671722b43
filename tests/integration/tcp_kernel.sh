#!/usr/bin/env bash
# ofcd's TCP stack against Linux's TCP through the tap, on the test-only echo
# service (tcp.echo_port):
#   (a) 1000 concurrent clients each send 300 KB, echoed byte-exact;
#   (b) the same (200 KB each) with the fault wrapper dropping 5%, duplicating
#       2% and reordering 5% of segments in both directions;
#   (c) clients that vanish (SIGKILL), half-close with nothing sent, or reset
#       mid-transfer leave no connection behind: the count returns to 0 and
#       every payload chunk is back in the pool;
#   (d) a SYN to a closed port is refused at once (RST);
#   (e) 100 clients with the system's own congestion control (BBR on the CI
#       machines) echoed byte-exact.
#
# (a) and (b) pin the clients to CUBIC. The tap's Linux queue (txqueuelen
# 1000) is the bottleneck for 1000 connections; BBR v1 keeps at least 4
# segments in flight per connection whatever the loss, so 1000 of them
# overflow that queue for the whole run (21,066 tap TX drops in one run),
# their bandwidth estimates collapse to a few KB/s and the slowest needed
# 50-150 s where CUBIC backs off and finishes in 4 s. That is Linux's sender
# against a shallow queue, not ofcd's stack: (e) shows BBR served at 100.

# usage: tcp_kernel.sh OFCD_BINARY CONFIG_FILE ECHO_CLIENT
set -uo pipefail
OFCD=$1
CONF=$2
CLIENT=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_test_services

ADDR=10.66.0.2
PORT=7007
it_setup tcp
it_on_exit '[ -n "${hold_pid:-}" ] && kill -KILL "$hold_pid"'

COMMON=(--config "$CONF" --app.data_dir="$work/var" --tcp.echo_port=$PORT
        --app.stats_log_interval_s=0)

run_client() {
    local name=$1
    shift
    "$CLIENT" --addr $ADDR --port $PORT "$@" >"$work/$name.out" 2>&1
    local rc=$?
    tail -1 "$work/$name.out"
    return $rc
}

check_clean() {
    local log=$1 what=$2
    wait_stat "$log" "connections" 0 30 || { ofcdctl conn/show | head -30;
        fail "$what: connections left behind"; }
    local free total
    free=$(ofcd_stat "$log" "chunks_free") || fail "no chunk count"
    total=$(grep -o 'buffer_chunks = [0-9]*' "$CONF" | grep -o '[0-9]*$')
    [ "$free" = "$total" ] || fail "$what: $free of $total payload chunks free: a leak"
    pass "$what: 0 connections, all $total chunks back"
}

# --- (a) clean path -------------------------------------------------------------
log=$work/ofcd-a.log
start_ofcd "$log" "${COMMON[@]}"
run_client a --conns 1000 --bytes 300K --cc cubic --timeout 150 ||
    { cat "$work/a.out"; fail "(a) 1000 x 300 KB echo"; }
pass "(a) 1000 clients x 300 KB echoed byte-exact"
check_clean "$log" "(a)"

# --- (e) the system's congestion control ------------------------------------------
cc=$(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null || echo unknown)
run_client e --conns 100 --bytes 300K --timeout 60 ||
    { cat "$work/e.out"; fail "(e) 100 x 300 KB echo with $cc"; }
pass "(e) 100 clients x 300 KB echoed byte-exact with the system's $cc"

# --- (d) closed port --------------------------------------------------------------
"$CLIENT" --addr $ADDR --port 7009 --conns 5 --bytes 1K --timeout 10 >"$work/d.out" 2>&1
grep -q 'ECONNREFUSED=5' "$work/d.out" || { cat "$work/d.out"; fail "(d) closed port not refused"; }
pass "(d) SYN to a closed port: refused by RST"

# --- (c) vanish, half-close, reset --------------------------------------------------
"$CLIENT" --addr $ADDR --port $PORT --conns 300 --bytes 100K --mode hold --timeout 60 \
    >"$work/hold.out" 2>&1 &
hold_pid=$!
wait_for_line "$work/hold.out" 'holding [0-9]+ connections' 60 ||
    { cat "$work/hold.out"; fail "(c) hold clients never connected"; }
wait_stat "$log" "connections" 300 10 ge || fail "(c) fewer than 300 connections while 300 clients hold"
conns=$(ofcd_stat "$log" "connections")
kill -KILL "$hold_pid"
wait "$hold_pid" 2>/dev/null
hold_pid=
pass "(c) 300 clients SIGKILLed while holding ($conns connections open)"
check_clean "$log" "(c) vanished clients"

run_client halfclose --conns 200 --bytes 0 --mode halfclose-only --timeout 30 ||
    { cat "$work/halfclose.out"; fail "(c) half-close with no data"; }
run_client halfclose2 --conns 200 --bytes 20K --mode halfclose-only --timeout 30 ||
    { cat "$work/halfclose2.out"; fail "(c) half-close after 20 KB"; }
pass "(c) half-closing clients get everything back, then our FIN"
run_client reset --conns 200 --bytes 200K --mode reset --timeout 30 ||
    { cat "$work/reset.out"; fail "(c) reset mid-transfer"; }
pass "(c) clients reset mid-transfer"
check_clean "$log" "(c) half-close and reset"
stop_ofcd

# --- (b) through the fault wrapper ----------------------------------------------------
log=$work/ofcd-b.log
start_ofcd "$log" "${COMMON[@]}" --fault.enabled=true --fault.seed=42 \
    --fault.rx_drop=0.05 --fault.rx_dup=0.02 --fault.rx_reorder=0.05 \
    --fault.tx_drop=0.05 --fault.tx_dup=0.02 --fault.tx_reorder=0.05
run_client b --conns 1000 --bytes 200K --cc cubic --timeout 240 ||
    { cat "$work/b.out"; fail "(b) echo through 5% loss, 2% dup, 5% reorder"; }
retrans=$(ofcd_stat "$log" "retransmits")
[ "${retrans:-0}" -gt 0 ] || fail "(b) no retransmissions: were faults injected at all?"
pass "(b) 1000 clients x 200 KB byte-exact through 5% drop / 2% dup / 5% reorder" \
     "both ways ($retrans retransmissions)"
check_clean "$log" "(b)"
stop_ofcd
grep 'fault(' "$log" | grep -o 'q0 [rt]x: .*' | sed 's/^/  /'
echo "tcp_kernel: all checks passed"
